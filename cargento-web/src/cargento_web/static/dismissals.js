// Sessions marked handled through POST /api/dismiss (issue 17) leave Attention's categories and
// its counts until anything in them writes again. The dashboard offers no handled control of
// its own; integrations call the API.
import { claim } from "/static/slots.js";

claim((board) => {
  const marked = (board.dismissals && board.dismissals.marked) || {};
  return board.sessions.filter((s) => s.key in marked).map((s) => ({ key: s.key, category: "handled", reason: "marked handled" }));
});
