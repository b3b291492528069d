// The menu's routes of prerender's browser API (docs/browser-api.md, "Menus"; prerender/blueprints/menu.py): one
// method per call, so that a path is written once, as the basket's are (sdk/basket-routes.js, which also holds
// the finalize: its answer is the basket). Every menu route is of the API's v2. The planner's page and the
// catalog's "add to my menu" call them through the SDK's internals (`menuRoutes`).

/** A menu recipe's path. @param {string} recipeId */
const recipePath = (recipeId) => `/menu/current/recipes/${encodeURIComponent(recipeId)}`;

/** @typedef {Record<string, string | number | null | undefined>} Query */

export class MenuRoutes {
  #client;

  /** @param {import("./http.js").ApiClient} client */
  constructor(client) {
    this.#client = client;
  }

  /**
   * GET /v2/menu/current: the shopper's menu, made when there is none (`from=scratch`: an empty one).
   * @param {Query} query
   * @returns {Promise<{ recipes?: { id?: unknown }[] } | null>}
   */
  read(query) {
    return this.#client.request("GET", "/menu/current", { query, version: "v2" });
  }

  /**
   * GET /v2/menu/current/suggestions: recipes for the menu, by type.
   * @param {Query} query
   * @returns {Promise<{ data?: { id?: unknown, title?: unknown }[] } | null>}
   */
  suggestions(query) {
    return this.#client.request("GET", "/menu/current/suggestions", { query, version: "v2" });
  }

  /** PATCH /v2/menu/current: its budget (null: none) or its guests. @param {{ budget?: number | null, guests?: number }} changes */
  update(changes) {
    return this.#client.request("PATCH", "/menu/current", { json: changes, write: true, version: "v2" });
  }

  /** POST /v2/menu/current/recipes. @param {string} recipeId */
  addRecipe(recipeId) {
    return this.#client.request("POST", "/menu/current/recipes", { json: { recipe_id: recipeId }, write: true, version: "v2" });
  }

  /** DELETE /v2/menu/current/recipes/<id>. @param {string} recipeId */
  removeRecipe(recipeId) {
    return this.#client.request("DELETE", recipePath(recipeId), { write: true, version: "v2" });
  }

  /** POST /v2/menu/current/recipes/<id>/swap: `nextId` in its place. @param {string} recipeId @param {string} nextId */
  swapRecipe(recipeId, nextId) {
    return this.#client.request("POST", `${recipePath(recipeId)}/swap`, { json: { recipe_id: nextId }, write: true, version: "v2" });
  }

  /**
   * PUT (selected) or DELETE (not) /v2/menu/current/recipes/<id>/products/<product>: a product of a menu recipe.
   * @param {string} recipeId @param {string} productId @param {boolean} selected
   */
  selectProduct(recipeId, productId, selected) {
    return this.#client.request(selected ? "PUT" : "DELETE", `${recipePath(recipeId)}/products/${encodeURIComponent(productId)}`,
      { write: true, version: "v2" });
  }
}
