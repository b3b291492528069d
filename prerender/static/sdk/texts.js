// The few texts the browser runtime writes itself (messages, controls it creates). Texts that the server
// renders (card, recipe details) come from the server's i18n files; these are the fallbacks of the SDK,
// per base language of `language-id`. The recipe-details JSON may override any key with a "texts" object.

/** @typedef {Record<string, string>} Texts */

/** @type {Record<string, Texts>} */
const TEXTS = {
  fr: {
    "error.generic": "Une erreur est survenue. Réessayez dans un instant.",
    "error.network": "Connexion impossible. Vérifiez votre réseau et réessayez.",
    "error.no-store": "Choisissez un magasin pour ajouter des produits.",
    "error.credential": "Votre session a expiré. Rechargez la page ou reconnectez-vous, puis réessayez.",
    "error.sign-in": "Connectez-vous pour enregistrer vos recettes favorites.",
    "error.like": "Vos favoris n'ont pas pu être mis à jour.",
    "error.details": "La recette n'a pas pu être chargée.",
    "error.not-found": "Cette recette n'est plus disponible.",
    "basket.rollback": "Le panier du magasin n'a pas suivi : la modification a été annulée.",
    "drawer.close": "Fermer",
    "drawer.loading": "Chargement…",
    "drawer.retry": "Réessayer",
    "drawer.dismiss": "Masquer le message",
    "details.add": "Ajouter",
    "details.add-aria": "Ajouter {name} au panier",
    "details.decrease": "Un {name} de moins",
    "details.increase": "Un {name} de plus",
    "transfer.received": "Les ingrédients de votre panier {affiliate} ont été ajoutés à votre panier.",
    "transfer.expired": "Ce lien de panier a expiré ou a déjà été utilisé : ajoutez à nouveau les recettes depuis le site d'origine.",
    "transfer.failed": "Le panier transféré n'a pas pu être ajouté. Réessayez depuis le site d'origine.",
    "details.unavailable-show": "Voir les produits indisponibles ({count})",
    "details.unavailable-hide": "Masquer les produits indisponibles",
    "drawer.preview": "Mon panier",
    "toaster.added-one": "1 produit ajouté à votre panier",
    "toaster.added-many": "{count} produits ajoutés à votre panier",
  },
  en: {
    "error.generic": "Something went wrong. Please try again in a moment.",
    "error.network": "No connection. Check your network and try again.",
    "error.no-store": "Choose a store to add products.",
    "error.credential": "Your session has expired. Reload the page or sign in again, then try again.",
    "error.sign-in": "Sign in to save your favorite recipes.",
    "error.like": "Your favorites could not be updated.",
    "error.details": "The recipe could not be loaded.",
    "error.not-found": "This recipe is no longer available.",
    "basket.rollback": "The shop's cart did not follow: the change was undone.",
    "drawer.close": "Close",
    "drawer.loading": "Loading…",
    "drawer.retry": "Try again",
    "drawer.dismiss": "Dismiss the message",
    "details.add": "Add",
    "details.add-aria": "Add {name} to the basket",
    "details.decrease": "One {name} fewer",
    "details.increase": "One {name} more",
    "transfer.received": "The ingredients of your {affiliate} basket were added to your cart.",
    "transfer.expired": "This basket link has expired or was already used: add the recipes again from the original site.",
    "transfer.failed": "The transferred basket could not be added. Please try again from the original site.",
    "details.unavailable-show": "Show the unavailable products ({count})",
    "details.unavailable-hide": "Hide the unavailable products",
    "drawer.preview": "My basket",
    "toaster.added-one": "1 product added to your cart",
    "toaster.added-many": "{count} products added to your cart",
  },
};

/**
 * A translator for a `language-id` (`fr`, `en`, `fr-<retailer>`), with optional overrides.
 * @param {string} languageId
 * @param {Texts} [overrides]
 * @returns {(key: string, params?: Record<string, string | number>) => string}
 */
export function translator(languageId, overrides = {}) {
  const base = TEXTS[String(languageId).slice(0, 2)] ?? TEXTS.fr;
  return (key, params = {}) => {
    const template = overrides[key] ?? base[key] ?? TEXTS.en[key] ?? key;
    return template.replace(/\{(\w+)\}/g, (match, name) => (name in params ? String(params[name]) : match));
  };
}
