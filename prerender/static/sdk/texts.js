// The few texts the browser runtime writes itself (messages, controls it creates). Texts that the server
// renders (card, recipe details) come from the server's i18n files; these are the SDK's own, per base language of
// `language-id`, and the server's files hold the same under `SDK` (tests/js/texts.test.mjs keeps them equal). A
// retailer's override file may replace them (`SDK.<key>`): prerender then writes its versions into its fragments
// (prerender/templates/scripts.html), and the SDK takes them from the page (`retailerTexts`). The recipe-details
// JSON may override any key with a "texts" object.
// A text may hold plural arguments, read as the server reads those of its i18n files
// (prerender/rendering/plurals.py): `{count, plural, =0 {…} one {# produit} other {# produits}}`, the category
// being the language's CLDR rule (`Intl.PluralRules`) and `#` the number as the language writes it.
import { jsonText } from "./json.js";

/** @typedef {Record<string, string>} Texts */

/** @type {Record<string, Texts>} */
export const TEXTS = {
  fr: {
    "error.generic": "Une erreur est survenue. Réessayez dans un instant.",
    "error.network": "Connexion impossible. Vérifiez votre réseau et réessayez.",
    "error.no-store": "Choisissez un magasin pour ajouter des produits.",
    "error.credential": "Votre session a expiré. Rechargez la page ou reconnectez-vous, puis réessayez.",
    "error.sign-in": "Connectez-vous pour enregistrer vos recettes favorites.",
    "error.like": "Vos favoris n'ont pas pu être mis à jour.",
    "error.details": "La recette n'a pas pu être chargée.",
    "error.drawer": "La recette ne peut pas s'ouvrir pour le moment. Réessayez dans un instant.",
    "drawer.opening": "Ouverture de la recette…",
    "error.drawer-basket": "Votre panier ne peut pas s'ouvrir pour le moment. Réessayez dans un instant.",
    "drawer.opening-basket": "Ouverture de votre panier…",
    "error.drawer-reload": "L'ouverture a encore échoué. Rechargez la page pour réessayer.",
    "error.not-found": "Cette recette n'est plus disponible.",
    "basket.rollback": "Le panier du magasin n'a pas suivi\u00a0: la modification a été annulée.",
    "basket.rollback-failed": "Le panier du magasin n'a pas suivi, et la modification n'a pas pu être annulée. Vérifiez votre connexion.",
    "basket.not-followed": "Le panier du magasin n'a pas suivi\u00a0: ces produits n'y ont pas été ajoutés.",
    "drawer.close": "Fermer",
    "drawer.loading": "Chargement…",
    "drawer.retry": "Réessayer",
    "drawer.dismiss": "Masquer le message",
    "drawer.working": "Un instant…",
    "details.removed": "Produit «\u00a0{name}\u00a0» retiré du panier.",
    "details.nothing-added": "La recette est déjà dans votre panier\u00a0: rien n'a été ajouté.",
    "details.add": "Ajouter",
    "details.packages": "× {count}",
    "details.add-aria": "Ajouter {name} au panier",
    "details.decrease": "Un de moins\u00a0: {name}",
    "details.increase": "Un de plus\u00a0: {name}",
    "transfer.received": "Votre panier de {affiliate}\u00a0: {recipes, plural, one {# recette} other {# recettes}}, {products, plural, =0 {aucun produit à ajouter} one {# produit} other {# produits}}",
    "transfer.expired": "Ce lien de panier a expiré ou a déjà été utilisé\u00a0: ajoutez à nouveau les recettes depuis le site d'origine.",
    "transfer.failed": "Le panier transféré n'a pas pu être ajouté. Réessayez depuis le site d'origine.",
    "transfer.later": "Votre panier de {affiliate} n'est pas encore arrivé\u00a0: nouvel essai dans un instant.",
    "transfer.next-page": "Votre panier de {affiliate} n'est pas encore arrivé\u00a0: nous réessaierons à la page suivante.",
    "transfer.affiliate": "l'autre site",
    "transfer.not-followed": "Votre panier de {affiliate} est arrivé, mais ses produits n'ont pas pu être ajoutés au panier du magasin.",
    "details.unavailable-show": "Voir les produits indisponibles ({count})",
    "details.unavailable-hide": "Masquer les produits indisponibles",
    "details.line-unavailable": "Plus vendu dans votre magasin",
    "drawer.preview": "Mon panier",
    "toaster.added": "{count, plural, one {# produit ajouté} other {# produits ajoutés}} à votre panier",
  },
  en: {
    "error.generic": "Something went wrong. Please try again in a moment.",
    "error.network": "No connection. Check your network and try again.",
    "error.no-store": "Choose a store to add products.",
    "error.credential": "Your session has expired. Reload the page or sign in again, then try again.",
    "error.sign-in": "Sign in to save your favorite recipes.",
    "error.like": "Your favorites could not be updated.",
    "error.details": "The recipe could not be loaded.",
    "error.drawer": "The recipe cannot open right now. Please try again in a moment.",
    "drawer.opening": "Opening the recipe…",
    "error.drawer-basket": "Your basket cannot open right now. Please try again in a moment.",
    "drawer.opening-basket": "Opening your basket…",
    "error.drawer-reload": "It failed to open again. Reload the page to try again.",
    "error.not-found": "This recipe is no longer available.",
    "basket.rollback": "The shop's cart did not follow: the change was undone.",
    "basket.rollback-failed": "The shop's cart did not follow, and the change could not be undone. Check your connection.",
    "basket.not-followed": "The shop's cart did not follow: these products were not added to it.",
    "drawer.close": "Close",
    "drawer.loading": "Loading…",
    "drawer.retry": "Try again",
    "drawer.dismiss": "Dismiss the message",
    "drawer.working": "One moment…",
    "details.removed": "{name} taken out of the basket.",
    "details.nothing-added": "The recipe is already in your basket: nothing was added.",
    "details.add": "Add",
    "details.packages": "× {count}",
    "details.add-aria": "Add {name} to the basket",
    "details.decrease": "One fewer: {name}",
    "details.increase": "One more: {name}",
    "transfer.received": "Your basket from {affiliate}: {recipes, plural, one {# recipe} other {# recipes}}, {products, plural, =0 {nothing to add to your cart} one {# product} other {# products}}",
    "transfer.expired": "This basket link has expired or was already used: add the recipes again from the original site.",
    "transfer.failed": "The transferred basket could not be added. Please try again from the original site.",
    "transfer.later": "Your basket from {affiliate} has not arrived yet: trying again in a moment.",
    "transfer.next-page": "Your basket from {affiliate} has not arrived yet: we will try again on your next page.",
    "transfer.affiliate": "the other site",
    "transfer.not-followed": "Your basket from {affiliate} arrived, but its products could not be added to the shop's cart.",
    "details.unavailable-show": "Show the unavailable products ({count})",
    "details.unavailable-hide": "Hide the unavailable products",
    "details.line-unavailable": "No longer sold at your store",
    "drawer.preview": "My basket",
    "toaster.added": "{count, plural, one {# product} other {# products}} added to your cart",
  },
};

/**
 * A translator for a `language-id` (`fr`, `en`, `fr-<retailer>`), with optional overrides.
 * @param {string} languageId
 * @param {Texts} [overrides]
 * @returns {(key: string, params?: Record<string, string | number>) => string}
 */
export function translator(languageId, overrides = {}) {
  const language = String(languageId).slice(0, 2);
  const base = TEXTS[language] ?? TEXTS.fr;
  const locale = TEXTS[language] ? language : "fr";
  const retailer = retailerTexts(locale);
  return (key, params = {}) =>
    formatText(overrides[key] ?? retailer[key] ?? base[key] ?? TEXTS.en[key] ?? key, params, locale);
}

// Where prerender writes a retailer's versions of the SDK's texts (prerender/templates/scripts.html).
const RETAILER_TEXTS = "script[type='application/json'].svc-sdk-texts";
/** @type {WeakMap<Element, Texts>} */
const readBlocks = new WeakMap();

/**
 * The retailer's versions of the SDK's texts in `language` that the page's prerender fragments carry (those of the
 * first block in that language), {} when none does (or outside a page). A block that does not read is left out.
 * @param {string} language `fr` or `en`
 * @returns {Texts}
 */
function retailerTexts(language) {
  if (typeof document === "undefined") return {};
  for (const block of document.querySelectorAll(RETAILER_TEXTS)) {
    if (block.getAttribute("data-language") !== language) continue;
    let texts = readBlocks.get(block);
    if (!texts) {
      texts = {};
      try {
        const parsed = JSON.parse(block.textContent ?? "");
        for (const [key, value] of Object.entries(parsed && typeof parsed === "object" ? parsed : {})) {
          if (typeof value === "string") texts[key] = value;
        }
      } catch {
        console.warn("a block of the retailer's texts does not read: the SDK's own stand in");
      }
      readBlocks.set(block, texts);
    }
    return texts;
  }
  return {};
}

/**
 * A text with its plural arguments and `{parameters}` filled in; a parameter it does not get stays as written,
 * and so does a malformed plural argument (with a warning in the console).
 * @param {string} template @param {Record<string, string | number>} params
 * @param {string} language `fr`, `en`, or a whole `language-id` (`fr-<retailer>`): its language is its first two
 *   letters (a retailer's name is no locale `Intl` takes: `fr-carrefour` would throw)
 * @returns {string}
 */
export function formatText(template, params, language) {
  let text = template;
  if (text.includes("plural")) {
    try {
      text = expandPlurals(text, params, String(language).slice(0, 2));
    } catch (error) {
      console.warn(`the text ${jsonText(template)} is malformed (${String(error)}): shown as written`);
    }
  }
  return text.replace(/\{(\w+)\}/g, (match, name) => (name in params ? isolated(params[name]) : match));
}

// A character that can reorder the text around it: a letter written right to left (Hebrew, Arabic, Syriac, Thaana,
// N'Ko...), or a bidirectional formatting character (marks, embeddings, overrides, isolates).
const BIDI_SENSITIVE = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/**
 * A text parameter that could reorder the sentence around it (a store or supplier name in Arabic, or one holding
 * U+202E) between FSI and PDI, as the server does (prerender/rendering/i18n.py): its direction stays its own, and
 * whatever it opens closes at its end. Other values as they are.
 * @param {string | number} value
 * @returns {string}
 */
export function isolated(value) {
  const text = String(value);
  return typeof value === "string" && BIDI_SENSITIVE.test(text) ? `\u2068${text}\u2069` : text;
}

const PLURAL_START = /\{\s*(\w+)\s*,\s*plural\s*,/g;
const SELECTOR = /\s*(=\s*-?\d+(?:\.\d+)?|zero|one|two|few|many|other)\s*\{/y;
const END = /\s*\}/y;

/** @param {string} text @param {Record<string, string | number>} params @param {string} language */
function expandPlurals(text, params, language) {
  let out = "";
  let position = 0;
  const start = new RegExp(PLURAL_START);
  for (let match = start.exec(text); match; match = start.exec(text)) {
    out += text.slice(position, match.index);
    const [branches, end] = pluralBranches(text, start.lastIndex);
    out += choose(match[1], branches, params, language);
    position = end;
    start.lastIndex = end;
  }
  return out + text.slice(position);
}

/** @param {string} text @param {number} position @returns {[Map<string, string>, number]} */
function pluralBranches(text, position) {
  /** @type {Map<string, string>} */
  const branches = new Map();
  for (;;) {
    END.lastIndex = position;
    if (END.exec(text)) break;
    SELECTOR.lastIndex = position;
    const selector = SELECTOR.exec(text);
    if (!selector) throw new SyntaxError(`no selector at ${position}`);
    const bodyStart = SELECTOR.lastIndex;
    const bodyEnd = closingBrace(text, bodyStart);
    branches.set(selector[1].replace(/\s+/g, ""), text.slice(bodyStart, bodyEnd));
    position = bodyEnd + 1;
  }
  if (!branches.has("other")) throw new SyntaxError("no `other` message");
  return [branches, END.lastIndex];
}

/** @param {string} text @param {number} position */
function closingBrace(text, position) {
  let depth = 1;
  for (let index = position; index < text.length; index += 1) {
    if (text[index] === "{") depth += 1;
    else if (text[index] === "}" && --depth === 0) return index;
  }
  throw new SyntaxError("unbalanced braces");
}

/** @param {string} name @param {Map<string, string>} branches @param {Record<string, string | number>} params @param {string} language */
function choose(name, branches, params, language) {
  const value = params[name];
  const number = typeof value === "number" || (typeof value === "string" && value.trim() !== "") ? Number(value) : NaN;
  const other = /** @type {string} */ (branches.get("other"));
  if (!Number.isFinite(number)) return expandPlurals(other, params, language).replaceAll("#", String(value ?? "#"));
  const exact = [...branches].find(([key]) => key.startsWith("=") && Number(key.slice(1)) === number)?.[1];
  const body = exact ?? branches.get(pluralRules(language).select(number)) ?? other;
  // The message's own plural arguments first: a `#` of theirs is their number.
  return expandPlurals(body, params, language).replaceAll("#", numberFormat(language).format(number));
}

/**
 * Building an `Intl` object costs about a millisecond (a page's first one far more, on a slow phone): each is
 * built once per kind, language and options, and kept for the page's life.
 * @type {Map<string, Intl.PluralRules | Intl.NumberFormat>}
 */
const intlObjects = new Map();

/** @param {string} language */
function pluralRules(language) {
  const key = `plural ${language}`;
  let rules = /** @type {Intl.PluralRules | undefined} */ (intlObjects.get(key));
  if (!rules) intlObjects.set(key, (rules = new Intl.PluralRules(language)));
  return rules;
}

/**
 * The number format of a language (and options, e.g. `{ style: "currency", currency: "EUR" }`), built once.
 * @param {string} language
 * @param {Intl.NumberFormatOptions} [options]
 * @returns {Intl.NumberFormat}
 */
export function numberFormat(language, options = {}) {
  const key = `number ${language} ${jsonText(options)}`;
  let format = /** @type {Intl.NumberFormat | undefined} */ (intlObjects.get(key));
  if (!format) intlObjects.set(key, (format = new Intl.NumberFormat(language, options)));
  return format;
}
