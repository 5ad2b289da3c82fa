// What a new board revision did not change, kept as the very objects the page already drew.
//
// Every /api/data answer parses into fresh objects, so nothing downstream could tell a row
// that stood still from one that moved. reuseUnchanged() swaps each session equal in value
// to the one of the same key on the previous board for that previous object, so a row can
// tell it stood still by identity (see views.js Rows; the features' parts of a row say what
// they read through slots.js fill()).

export function same(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  const arr = Array.isArray(a);
  if (arr !== Array.isArray(b)) return false;
  if (arr) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !same(a[k], b[k])) return false;
  }
  return true;
}

export function reuseUnchanged(board, previous) {
  if (!previous || !previous.sessions) return board;
  const before = new Map(previous.sessions.map((s) => [s.key, s]));
  board.sessions = board.sessions.map((s) => {
    const old = before.get(s.key);
    return old !== undefined && same(old, s) ? old : s;
  });
  return board;
}
