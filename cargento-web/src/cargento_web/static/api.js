// Talking to this dashboard's own JSON routes. A state-changing request is a same-origin
// fetch, so the browser sends the Origin and Sec-Fetch headers the server checks.

// GET a JSON route: {ok, status, body} with body null when the reply was not JSON.
export async function getJSON(path) {
  return answer(await fetch(path, { cache: "no-store", headers: { Accept: "application/json" } }));
}

// POST a JSON body: {ok, status, body}. A network failure answers {ok: false, status: 0}.
export async function postJSON(path, body) {
  try {
    const r = await fetch(path, {
      method: "POST",
      cache: "no-store",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
    return await answer(r);
  } catch (e) {
    return { ok: false, status: 0, body: null, error: String(e.message || e) };
  }
}

async function answer(r) {
  let body = null;
  try {
    body = await r.json();
  } catch (_) {
    body = null;
  }
  return { ok: r.ok, status: r.status, body };
}
