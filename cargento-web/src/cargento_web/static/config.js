// What the server told this page at load: the <meta name="cargento-config"> document.
const meta = document.querySelector('meta[name="cargento-config"]');

export const CONFIG = Object.assign(
  { heartbeat_s: 5, all: false, notifications: null, store_resets: [], features: {} },
  meta ? JSON.parse(meta.content) : {},
);

// One operator feature's configuration (config.features[name]), or null when the server runs
// no such feature.
export function feature(name) {
  const found = CONFIG.features && CONFIG.features[name];
  return found === undefined ? null : found;
}
