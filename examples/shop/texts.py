"""The shop's own texts (its chrome; the cards bring theirs) and price formatting, in French and English."""
from __future__ import annotations

from decimal import Decimal

TEXTS: dict[str, dict[str, str]] = {
    "fr": {
        "title": "Demo Market – Épicerie en ligne",
        "promo_bar": "Retrait gratuit en magasin · Livraison offerte dès 50 €",
        "store": "Magasin",
        "no_store": "Aucun magasin",
        "language": "Langue",
        "apply": "OK",
        "login": "Se connecter",
        "login_hint": "(utilisateur démo)",
        "logout": "Se déconnecter",
        "hello": "Bonjour, utilisateur démo",
        "search": "Rechercher un produit, une marque…",
        "breadcrumb_home": "Accueil",
        "aisle": "Le marché frais",
        "aisle_intro": "Les produits de votre magasin, et des idées de recettes pour les cuisiner.",
        "count": "{count} produits",
        "prices_at": "Prix de {store}",
        "choose_store": "Choisissez un magasin pour voir les prix et les disponibilités.",
        "add": "Ajouter",
        "price_in_store": "Prix en magasin",
        "unavailable": "Indisponible",
        "promo": "Promo",
        "ideas": "Idées recettes",
        "ideas_intro": "Des recettes pour cuisiner les produits de ce rayon.",
        "catalog_down_title": "Catalogue indisponible",
        "catalog_down_text": "Notre catalogue est momentanément indisponible. Merci de réessayer dans quelques instants.",
        "retry": "Réessayer",
        "footer": "Demo Market · boutique de démonstration · les recettes sont fournies par notre partenaire.",
    },
    "en": {
        "title": "Demo Market – Online grocery",
        "promo_bar": "Free in-store pickup · Free delivery from €50",
        "store": "Store",
        "no_store": "No store",
        "language": "Language",
        "apply": "OK",
        "login": "Log in",
        "login_hint": "(demo user)",
        "logout": "Log out",
        "hello": "Hello, demo user",
        "search": "Search for a product, a brand…",
        "breadcrumb_home": "Home",
        "aisle": "Fresh market",
        "aisle_intro": "Your store's products, and recipe ideas to cook them.",
        "count": "{count} products",
        "prices_at": "Prices of {store}",
        "choose_store": "Choose a store to see prices and availability.",
        "add": "Add",
        "price_in_store": "In-store price",
        "unavailable": "Unavailable",
        "promo": "Deal",
        "ideas": "Recipe ideas",
        "ideas_intro": "Recipes to cook the products of this aisle.",
        "catalog_down_title": "Catalogue unavailable",
        "catalog_down_text": "Our catalogue is temporarily unavailable. Please try again in a few moments.",
        "retry": "Try again",
        "footer": "Demo Market · demonstration shop · recipes provided by our partner.",
    },
}


class Texts:
    def __init__(self, language: str) -> None:
        self.language = language if language in TEXTS else "fr"
        self._texts = TEXTS[self.language]

    def __call__(self, key: str, **values: object) -> str:
        text = self._texts[key]
        return text.format(**values) if values else text

    def price(self, amount: Decimal) -> str:
        """2,49 € in French, €2.49 in English."""
        if self.language == "fr":
            return f"{amount:.2f}".replace(".", ",") + "\u00a0€"
        return f"€{amount:.2f}"
