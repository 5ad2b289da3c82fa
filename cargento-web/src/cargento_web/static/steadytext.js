// Text that did not change is not written again.
//
// The vendored Preact (11.2.0) writes a text node whose value is falsy (the number 0, or "")
// on every render even when it is unchanged, and each such write makes the browser lay the
// page out again: with the once-a-second clock redraw and 640 rows that was most of an idle
// page's CPU. Every element's text children are given here in the form Preact compares
// correctly: a number as its string, an empty string as nothing (an empty text node and no
// text node look the same). Imported first by app.js.
import { options } from "preact";

function steady(child) {
  if (child === "") return null;
  if (typeof child === "number") return String(child);
  if (Array.isArray(child)) {
    for (let i = 0; i < child.length; i++) child[i] = steady(child[i]);
  }
  return child;
}

const prior = options.vnode;
options.vnode = (vnode) => {
  const props = vnode.props;
  if (typeof vnode.type === "string" && props && props.children != null) props.children = steady(props.children);
  if (prior) prior(vnode);
};
