// The configuration of this page's modules, read from their URL (docs/sdk.md, section 1). A service whose
// element prefix is not `svc`, or whose modules come from a CDN, serves them under one more path segment after
// the build id: `<base>/static/<build>/~<config>/sdk/svc.js`, `<config>` being the unpadded base64url of the
// query `prefix=<p>&api=<url>` (prerender/rendering/assets.py writes it). The modules import each other by
// relative paths, so all of them are loaded under that segment, and each once.

/**
 * @typedef {object} ModuleConfig
 * @property {string} prefix the element prefix: `<prefix>-recipe-card`, `window.<prefix>`
 * @property {string} apiBase where prerender's browser routes are: `api`, else the modules' own host and path
 *   (`<base>/static/<build>/sdk/svc.js` -> `<base>/`)
 */

/**
 * The configuration in the URL of a module of the tree's first level (`sdk/svc.js`, `components/ui.js`).
 * @param {string} moduleUrl its `import.meta.url`
 * @returns {ModuleConfig}
 */
export function moduleConfig(moduleUrl) {
  let root = new URL("../", moduleUrl); // <base>/static/<build>/ or <base>/static/<build>/~<config>/
  const segment = root.pathname.split("/").at(-2) ?? "";
  let params = new URLSearchParams();
  if (segment.startsWith("~")) {
    params = new URLSearchParams(atob(segment.slice(1).replaceAll("-", "+").replaceAll("_", "/")));
    root = new URL("../", root);
  }
  return {
    prefix: params.get("prefix") || "svc",
    apiBase: params.get("api") || new URL("../../", root).href,
  };
}
