// Unit tests of prerender/static/sdk/texts.js, in Node (full ICU): `translator` (the SDK's texts per base
// language of `language-id`, fallbacks to French, then English, then the key; overrides; `{parameters}`),
// `formatText`'s plural arguments read as prerender/rendering/plurals.py reads them (the language's CLDR
// category through Intl.PluralRules, exact `=n` selectors first, `#` written as the language writes numbers,
// nested arguments, a non-number taking `other`, a malformed text shown as written with a warning), and
// `numberFormat`'s one cache of Intl.NumberFormat per language and options.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { TEXTS, formatText, isolated, numberFormat, translator } from "../../prerender/static/sdk/texts.js";

const NBSP = "\u00a0"; // before the euro sign in French
const NNBSP = "\u202f"; // French thousands separator

describe("translator", () => {
  test("gives the text of the key in the base language of language-id", () => {
    assert.equal(translator("en")("drawer.close"), "Close");
    assert.equal(translator("fr")("drawer.close"), "Fermer");
    assert.equal(translator("fr-carrefour_city")("drawer.close"), "Fermer", "a retailer's language-id: its base language");
    assert.equal(translator("en-shop")("drawer.retry"), "Try again");
  });

  test("a language the SDK has no texts for is French", () => {
    assert.equal(translator("de")("drawer.close"), "Fermer");
    assert.equal(translator("de")("toaster.added", { count: 0 }), "0 produit ajouté à votre panier", "with French plural rules");
  });

  test("an unknown key is the key itself", () => {
    assert.equal(translator("en")("no.such.key"), "no.such.key");
  });

  test("overrides win over the SDK's texts; a key only in English falls back to English", () => {
    const t = translator("fr", { "drawer.close": "Fermer le panneau", "custom.only": "Bonjour {name}" });
    assert.equal(t("drawer.close"), "Fermer le panneau");
    assert.equal(t("custom.only", { name: "Ana" }), "Bonjour Ana");
    assert.equal(t("drawer.retry"), "Réessayer");
  });

  test("fills {parameters}; one it does not get stays as written", () => {
    const t = translator("en");
    assert.equal(t("details.add-aria", { name: "tomatoes" }), "Add tomatoes to the basket");
    assert.equal(t("details.add-aria"), "Add {name} to the basket");
    assert.equal(t("details.unavailable-show", { count: 3 }), "Show the unavailable products (3)");
  });

  test("plural texts of the SDK in English: one is exactly 1", () => {
    const t = translator("en");
    assert.equal(t("toaster.added", { count: 1 }), "1 product added to your cart");
    assert.equal(t("toaster.added", { count: 0 }), "0 products added to your cart");
    assert.equal(t("toaster.added", { count: 2 }), "2 products added to your cart");
    assert.equal(t("toaster.added", { count: 1500 }), "1,500 products added to your cart");
  });

  test("plural texts of the SDK in French: one is 0, 1 and every number below 2", () => {
    const t = translator("fr");
    assert.equal(t("toaster.added", { count: 0 }), "0 produit ajouté à votre panier");
    assert.equal(t("toaster.added", { count: 1 }), "1 produit ajouté à votre panier");
    assert.equal(t("toaster.added", { count: 1.5 }), "1,5 produit ajouté à votre panier");
    assert.equal(t("toaster.added", { count: 2 }), "2 produits ajoutés à votre panier");
    assert.equal(t("toaster.added", { count: 1000 }), `1${NNBSP}000 produits ajoutés à votre panier`);
    assert.equal(t("toaster.added", { count: 1_000_000 }), `1${NNBSP}000${NNBSP}000 produits ajoutés à votre panier`,
      "CLDR's `many` (a million) has no message: `other`");
  });

  test("several plural arguments and a parameter in one text", () => {
    assert.equal(translator("fr")("transfer.received", { affiliate: "Le Magazine", recipes: 1, products: 6 }),
      "Votre panier de Le Magazine\u00a0: 1 recette, 6 produits");
    assert.equal(translator("en")("transfer.received", { affiliate: "The Mag", recipes: 2, products: 1 }),
      "Your basket from The Mag: 2 recipes, 1 product");
    // A recipe whose products the cart already held adds none: said so, not "0 produit".
    assert.equal(translator("fr")("transfer.received", { affiliate: "Le Magazine", recipes: 1, products: 0 }),
      "Votre panier de Le Magazine\u00a0: 1 recette, aucun produit à ajouter");
    assert.equal(translator("en")("transfer.received", { affiliate: "The Mag", recipes: 1, products: 0 }),
      "Your basket from The Mag: 1 recipe, nothing to add to your cart");
  });
});

describe("the SDK's texts and the server's", () => {
  // The drawer's controls take theirs from the recipe details (RECIPE_DETAILS.*, prerender/rendering/details.py),
  // which win over the SDK's: a retailer overrides those there.
  const FROM_DETAILS = ["details.add", "details.packages", "details.decrease", "details.increase"];

  test("the server's SDK section is the SDK's texts, which a retailer's override file may replace", () => {
    for (const language of ["fr", "en"]) {
      const server = JSON.parse(readFileSync(new URL(`../../prerender/i18n/${language}.json`, import.meta.url), "utf8"));
      const own = Object.fromEntries(Object.entries(TEXTS[language]).filter(([key]) => !FROM_DETAILS.includes(key)));
      assert.deepEqual(server.SDK, own, language);
    }
  });

  test("a retailer's versions in the page's fragments win over the SDK's, in their language only", () => {
    const block = (language, text) => ({
      getAttribute: (name) => (name === "data-language" ? language : null),
      textContent: text,
    });
    const blocks = [
      block("en", JSON.stringify({ "drawer.close": "Close the recipe" })),
      block("fr", JSON.stringify({ "drawer.close": "Fermer la recette", "drawer.retry": 3 })),
      block("fr", JSON.stringify({ "drawer.close": "a second block: the first in the language wins" })),
    ];
    const warnings = [];
    const warn = console.warn;
    globalThis.document = { querySelectorAll: () => blocks };
    console.warn = (message) => warnings.push(message);
    try {
      assert.equal(translator("fr-demo")("drawer.close"), "Fermer la recette");
      assert.equal(translator("fr-demo")("drawer.retry"), "Réessayer", "a value that is no text is left out");
      assert.equal(translator("en")("drawer.close"), "Close the recipe");
      assert.equal(translator("fr", { "drawer.close": "the component's own" })("drawer.close"), "the component's own");
      blocks.splice(0, 3, block("fr", "{not json"));
      assert.equal(translator("fr")("drawer.close"), "Fermer");
      assert.equal(warnings.length, 1);
    } finally {
      delete globalThis.document;
      console.warn = warn;
    }
  });
});

describe("formatText", () => {
  test("a whole language-id (a retailer's variant) reads as its language", () => {
    // A retailer's name is no locale Intl takes ("fr-carrefour" throws): the text would show as written.
    const recipes = "{count, plural, one {# recette} other {# recettes}}";
    for (const variant of ["fr-carrefour", "fr-x", "fr-my_shop", "en-demo"]) {
      const language = variant.slice(0, 2);
      assert.equal(formatText(recipes, { count: 5 }, variant), formatText(recipes, { count: 5 }, language), variant);
    }
    assert.equal(formatText(recipes, { count: 1 }, "fr-carrefour"), "1 recette");
  });

  test("an exact selector wins over the category", () => {
    const text = "{n, plural, =0 {none} =1 {just one} one {# item} other {# items}}";
    assert.equal(formatText(text, { n: 0 }, "en"), "none");
    assert.equal(formatText(text, { n: 1 }, "en"), "just one");
    assert.equal(formatText(text, { n: 3 }, "en"), "3 items");
    assert.equal(formatText("{n, plural, = 2 {a pair} other {#}}", { n: 2 }, "en"), "a pair", "spaces in a selector");
  });

  test("a number given as a string counts as that number", () => {
    assert.equal(formatText("{n, plural, one {# item} other {# items}}", { n: "1" }, "en"), "1 item");
    assert.equal(formatText("{n, plural, one {# item} other {# items}}", { n: " 2 " }, "en"), "2 items");
  });

  test("text around the plural argument is kept; spaces inside the argument are free", () => {
    assert.equal(formatText("Total: { n ,plural,one{# bag}  other { # bags } } today", { n: 4 }, "en"), "Total:  4 bags  today");
  });

  test("a nested plural argument: its # is its own number", () => {
    const text = "{recipes, plural, one {# recipe with {items, plural, one {# item} other {# items}}} other {# recipes}}";
    assert.equal(formatText(text, { recipes: 1, items: 3 }, "en"), "1 recipe with 3 items");
    assert.equal(formatText(text, { recipes: 2, items: 3 }, "en"), "2 recipes");
  });

  test("a parameter that is no number takes `other`, # being the value as given (or # when missing)", () => {
    const text = "{n, plural, one {# item} other {# items}}";
    assert.equal(formatText(text, { n: "a few" }, "en"), "a few items");
    assert.equal(formatText(text, { n: "" }, "en"), " items");
    assert.equal(formatText(text, {}, "en"), "# items");
  });

  test("a malformed plural argument is shown as written (parameters still filled), with a warning", (t) => {
    const warned = t.mock.method(console, "warn", () => {});
    assert.equal(formatText("{n, plural, one {# item}} for {name}", { n: 1, name: "Ana" }, "en"),
      "{n, plural, one {# item}} for Ana", "no `other`");
    assert.equal(formatText("{n, plural, one {# item} other {# items}", { n: 1 }, "en"),
      "{n, plural, one {# item} other {# items}", "unbalanced braces");
    assert.equal(formatText("{n, plural, lots {#} other {#}}", { n: 1 }, "en"), "{n, plural, lots {#} other {#}}", "unknown selector");
    assert.equal(warned.mock.callCount(), 3);
  });

  test("a text that only mentions the word plural is left alone", (t) => {
    const warned = t.mock.method(console, "warn", () => {});
    assert.equal(formatText("plural of {word}", { word: "cake" }, "en"), "plural of cake");
    assert.equal(warned.mock.callCount(), 0);
  });
});

describe("numberFormat", () => {
  test("formats as the language writes numbers and prices", () => {
    assert.equal(numberFormat("fr").format(1234.5), `1${NNBSP}234,5`);
    assert.equal(numberFormat("en").format(1234.5), "1,234.5");
    assert.equal(numberFormat("fr", { style: "currency", currency: "EUR" }).format(12.5), `12,50${NBSP}€`);
    assert.equal(numberFormat("en", { style: "currency", currency: "EUR" }).format(12.5), "€12.50");
  });

  test("one Intl.NumberFormat per language and options, built once", () => {
    const euros = numberFormat("fr", { style: "currency", currency: "EUR" });
    assert.ok(euros instanceof Intl.NumberFormat);
    assert.equal(numberFormat("fr", { style: "currency", currency: "EUR" }), euros);
    assert.notEqual(numberFormat("fr", { style: "currency", currency: "USD" }), euros);
    assert.notEqual(numberFormat("en", { style: "currency", currency: "EUR" }), euros);
    assert.equal(numberFormat("fr"), numberFormat("fr", {}));
    assert.notEqual(numberFormat("fr"), euros);
  });
});

describe("bidirectional isolation of parameters", () => {
  const FSI = "\u2068";
  const PDI = "\u2069";

  test("a parameter that could reorder the sentence keeps its own direction, between FSI and PDI", () => {
    const t = translator("fr");
    const received = t("transfer.received", { affiliate: "Shop\u202e", recipes: 1, products: 7 });
    assert.equal(received, `Votre panier de ${FSI}Shop\u202e${PDI}\u00a0: 1 recette, 7 produits`);
    assert.equal(formatText("Magasin : {store}", { store: "متجر" }, "fr"), `Magasin : ${FSI}متجر${PDI}`);
  });

  test("a name without such characters, and numbers, are written as they are", () => {
    assert.equal(formatText("Magasin : {store} ({n})", { store: "Demo Market", n: 3 }, "fr"), "Magasin : Demo Market (3)");
    assert.equal(isolated(12), "12");
    assert.equal(isolated("Bastille"), "Bastille");
  });
});
