"""The blog's own recipes: its texts, times, ingredients in prose, steps, authors and pictures.

Keyed by the blog's own ids, the ones it gave its partner: prerender looks each up as a recipe's
`external_id` (coreapi/seed/data/recipes.json, the "Le Magazine Cuisine" supplier), so their titles and
servings agree with the seed. One recipe, the gâteau basque, is not in the partner's catalog yet: its page
has no add-to-cart button (prerender answers an empty body), and must read as well as the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

CATEGORIES = {
    "entrees": "Entrées & salades",
    "plats": "Plats",
    "desserts": "Desserts",
}

MONTHS = (
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
)


def quantity_text(quantity: float) -> str:
    """A quantity as the French write it: 3, 1,5, 0,5."""
    if quantity == int(quantity):
        return str(int(quantity))
    return f"{quantity:.2f}".rstrip("0").rstrip(".").replace(".", ",")


def duration_text(minutes: int) -> str:
    """45 min, 1 h, 1 h 15."""
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest:02d}" if rest else f"{hours} h"


def date_text(day: date) -> str:
    """12 mars 2025 (1er for the first of the month)."""
    number = "1er" if day.day == 1 else str(day.day)
    return f"{number} {MONTHS[day.month - 1]} {day.year}"


@dataclass(frozen=True)
class Ingredient:
    """One line of the ingredient list: "200 g de lardons fumés", "3 œufs", "Sel, poivre du moulin".

    `text` follows the quantity and its unit; `one` is the singular of a counted `text` ("œuf" for "œufs"),
    which the page's script uses when the servings bring the count down to 1.
    """

    text: str
    quantity: float | None = None
    unit: str = ""
    one: str | None = None

    def line(self, quantity: float | None = None) -> str:
        """The whole line, for `quantity` (default: the recipe's own)."""
        amount = self.quantity if quantity is None else quantity
        if amount is None:
            return self.text
        noun = self.one if self.one and amount <= 1 else self.text
        unit = f" {self.unit}" if self.unit else ""
        return f"{quantity_text(amount)}{unit} {noun}"


@dataclass(frozen=True)
class Recipe:
    """A recipe as the blog publishes it."""

    id: str
    title: str
    category: str
    kicker: str
    intro: str
    preparation: int
    cooking: int
    servings: int
    difficulty: str
    ingredients: tuple[Ingredient, ...]
    steps: tuple[str, ...]
    tip: str
    author: str
    published: date
    picture: str
    picture_alt: str
    resting: int = 0

    @property
    def total_time(self) -> int:
        return self.preparation + self.cooking + self.resting

    @property
    def category_name(self) -> str:
        return CATEGORIES[self.category]


def _i(text: str, quantity: float | None = None, unit: str = "", one: str | None = None) -> Ingredient:
    return Ingredient(text=text, quantity=quantity, unit=unit, one=one)


RECIPES: tuple[Recipe, ...] = (
    Recipe(
        id="pub-ratatouille-provencale",
        title="Ratatouille provençale",
        category="plats",
        kicker="Cuisine du soleil",
        intro=(
            "Le secret d’une vraie ratatouille ? De la patience. Chaque légume est doré à part avant de mijoter "
            "avec les autres, pour garder sa saveur et sa tenue. Elle est encore meilleure réchauffée le "
            "lendemain, tiède avec un œuf au plat ou froide sur une tranche de pain grillé."
        ),
        preparation=25,
        cooking=45,
        servings=4,
        difficulty="Facile",
        ingredients=(
            _i("d’aubergines", 400, "g"),
            _i("de courgettes", 400, "g"),
            _i("de poivrons rouges", 300, "g"),
            _i("de tomates bien mûres", 500, "g"),
            _i("d’oignons jaunes", 150, "g"),
            _i("gousses d’ail", 2, one="gousse d’ail"),
            _i("brins de thym frais", 3, one="brin de thym frais"),
            _i("d’huile d’olive", 4, "c. à soupe"),
            _i("Sel, poivre du moulin"),
        ),
        steps=(
            "Lavez les légumes. Coupez les aubergines, les courgettes et les poivrons épépinés en dés "
            "d’environ 2 cm, en gardant chaque légume à part.",
            "Dans une grande poêle, faites dorer les aubergines 8 minutes dans une cuillerée d’huile d’olive, "
            "puis réservez-les. Recommencez avec les courgettes, puis avec les poivrons.",
            "Dans une cocotte, faites fondre l’oignon émincé et l’ail écrasé dans le reste de l’huile. Ajoutez "
            "les tomates concassées et laissez compoter 5 minutes.",
            "Versez tous les légumes dans la cocotte, ajoutez le thym, salez et poivrez.",
            "Couvrez et laissez mijoter 40 minutes à feu doux, en remuant de temps en temps sans écraser les légumes.",
        ),
        tip=(
            "Ne zappez pas la cuisson séparée des légumes : c’est elle qui évite la « compotée » et donne "
            "une ratatouille aux morceaux bien dessinés."
        ),
        author="Camille Roux",
        published=date(2025, 9, 2),
        picture="ratatouille.svg",
        picture_alt="Une cocotte de ratatouille vue de dessus : dés d’aubergine, de courgette et de poivron, "
        "brins de thym.",
    ),
    Recipe(
        id="pub-quiche-lorraine",
        title="Quiche lorraine",
        category="plats",
        kicker="Le grand classique",
        intro=(
            "Pas de fromage, pas d’oignon : la quiche lorraine de tradition, c’est une pâte croustillante, "
            "des lardons fumés et un appareil aux œufs et à la crème, doré juste ce qu’il faut. Avec une "
            "salade verte, c’est le dîner parfait."
        ),
        preparation=15,
        cooking=35,
        servings=6,
        difficulty="Facile",
        ingredients=(
            _i("rouleaux de pâte brisée", 1, one="rouleau de pâte brisée"),
            _i("de lardons fumés", 200, "g"),
            _i("œufs", 3, one="œuf"),
            _i("de crème fraîche épaisse", 20, "cl"),
            _i("de lait entier", 20, "cl"),
            _i("Une pincée de noix de muscade"),
            _i("Poivre du moulin"),
        ),
        steps=(
            "Préchauffez le four à 200 °C. Déroulez la pâte dans un moule à tarte en gardant le papier de "
            "cuisson, et piquez le fond à la fourchette.",
            "Faites dorer les lardons à sec dans une poêle, puis égouttez-les sur du papier absorbant.",
            "Dans un saladier, battez les œufs avec la crème, le lait et la muscade. Poivrez, mais ne salez "
            "pas : les lardons s’en chargent.",
            "Répartissez les lardons sur le fond de tarte et versez l’appareil par-dessus.",
            "Enfournez pour 35 minutes, jusqu’à ce que la quiche soit gonflée et bien dorée.",
        ),
        tip="Laissez reposer la quiche 10 minutes hors du four avant de la découper : l’appareil se tient mieux.",
        author="Julien Marchand",
        published=date(2025, 9, 16),
        picture="quiche.svg",
        picture_alt="Une quiche dorée dans son moule cannelé, une part déjà découpée.",
    ),
    Recipe(
        id="pub-spaghetti-carbonara",
        title="Spaghetti à la carbonara",
        category="plats",
        kicker="Prêt en 25 minutes",
        intro=(
            "Ici, pas de crème : la sauce naît des jaunes d’œufs, du parmesan et d’un peu d’eau de cuisson "
            "des pâtes, qui s’émulsionnent hors du feu. Le résultat est soyeux, et le plat prêt en moins "
            "d’une demi-heure."
        ),
        preparation=10,
        cooking=15,
        servings=4,
        difficulty="Facile",
        ingredients=(
            _i("de spaghetti", 400, "g"),
            _i("de lardons fumés", 200, "g"),
            _i("œufs très frais", 4, one="œuf très frais"),
            _i("de parmesan râpé", 80, "g"),
            _i("Poivre noir fraîchement moulu"),
            _i("Sel"),
        ),
        steps=(
            "Portez une grande casserole d’eau salée à ébullition et faites-y cuire les spaghetti al dente.",
            "Pendant ce temps, faites dorer les lardons à sec dans une grande poêle.",
            "Séparez les blancs des jaunes. Battez les jaunes avec le parmesan et beaucoup de poivre.",
            "Égouttez les pâtes en gardant une louche d’eau de cuisson. Hors du feu, mélangez-les aux lardons, "
            "puis à la sauce, en détendant avec l’eau de cuisson jusqu’à obtenir une sauce nappante.",
        ),
        tip="Gardez les blancs : ils feront de parfaites meringues ou une omelette légère pour le lendemain.",
        author="Julien Marchand",
        published=date(2025, 10, 7),
        picture="carbonara.svg",
        picture_alt="Une assiette de spaghetti à la carbonara, lardons dorés et poivre noir.",
    ),
    Recipe(
        id="pub-poulet-basquaise",
        title="Poulet basquaise",
        category="plats",
        kicker="Escapade au Pays basque",
        intro=(
            "Des cuisses de poulet dorées puis mijotées dans une piperade de poivrons et de tomates, relevée "
            "d’une pointe de piment d’Espelette. Un plat de partage, à servir avec du riz blanc ou des "
            "pommes de terre vapeur."
        ),
        preparation=20,
        cooking=50,
        servings=4,
        difficulty="Facile",
        ingredients=(
            _i("cuisses de poulet", 4, one="cuisse de poulet"),
            _i("de poivrons rouges", 300, "g"),
            _i("de poivrons jaunes", 300, "g"),
            _i("de tomates", 500, "g"),
            _i("d’oignons", 150, "g"),
            _i("gousses d’ail", 2, one="gousse d’ail"),
            _i("de piment d’Espelette", 1, "c. à café"),
            _i("d’huile d’olive", 2, "c. à soupe"),
            _i("Sel"),
        ),
        steps=(
            "Dans une cocotte, faites dorer les cuisses de poulet sur toutes leurs faces dans l’huile "
            "d’olive, puis réservez-les.",
            "Dans la même cocotte, faites revenir l’oignon, l’ail et les poivrons coupés en lanières pendant "
            "10 minutes.",
            "Ajoutez les tomates concassées, le piment d’Espelette et un peu de sel, puis remettez le poulet.",
            "Couvrez et laissez mijoter 40 minutes à feu doux. Rectifiez l’assaisonnement avant de servir.",
        ),
        tip="Comme tous les plats mijotés, il gagne à être préparé la veille et réchauffé doucement.",
        author="Hélène Duval",
        published=date(2025, 10, 21),
        picture="basquaise.svg",
        picture_alt="Une cocotte de poulet basquaise : cuisses dorées sur un lit de poivrons rouges et jaunes.",
    ),
    Recipe(
        id="pub-hachis-parmentier",
        title="Hachis parmentier",
        category="plats",
        kicker="Cuisine de famille",
        intro=(
            "Une farce de bœuf aux oignons sous une purée maison bien beurrée, gratinée jusqu’à ce que le "
            "dessus croustille : le plat qui met tout le monde d’accord les soirs d’hiver."
        ),
        preparation=25,
        cooking=30,
        servings=4,
        difficulty="Facile",
        ingredients=(
            _i("de bœuf haché", 500, "g"),
            _i("de pommes de terre à purée", 1000, "g"),
            _i("d’oignons", 150, "g"),
            _i("de lait", 20, "cl"),
            _i("de beurre", 50, "g"),
            _i("de gruyère râpé", 80, "g"),
            _i("Quelques brins de persil plat"),
            _i("Sel, poivre"),
        ),
        steps=(
            "Épluchez les pommes de terre et faites-les cuire 20 minutes à l’eau salée.",
            "Faites revenir l’oignon haché, ajoutez la viande et faites-la dorer 8 minutes. Ajoutez le persil "
            "ciselé, salez et poivrez.",
            "Écrasez les pommes de terre avec le beurre et le lait chaud pour obtenir une purée lisse.",
            "Dans un plat, étalez la viande, couvrez de purée, lissez à la fourchette et parsemez de fromage.",
            "Faites gratiner 20 minutes au four à 200 °C.",
        ),
        tip="Un reste de pot-au-feu ou de bœuf bourguignon fait une farce encore plus savoureuse.",
        author="Sophie Lemaire",
        published=date(2025, 11, 4),
        picture="parmentier.svg",
        picture_alt="Un plat à gratin de hachis parmentier, la purée dorée striée à la fourchette.",
    ),
    Recipe(
        id="pub-salade-nicoise",
        title="Salade niçoise",
        category="entrees",
        kicker="Fraîcheur de saison",
        intro=(
            "La grande salade du soleil, à composer sur un plat : thon, œufs durs, haricots verts croquants, "
            "tomates et olives noires, le tout arrosé d’une bonne huile d’olive. Une entrée généreuse ou un "
            "déjeuner complet."
        ),
        preparation=20,
        cooking=10,
        servings=4,
        difficulty="Facile",
        ingredients=(
            _i("de thon au naturel", 280, "g"),
            _i("œufs", 4, one="œuf"),
            _i("de haricots verts", 200, "g"),
            _i("de tomates", 400, "g"),
            _i("d’olives noires de Nyons", 60, "g"),
            _i("de salade verte", 150, "g"),
            _i("d’huile d’olive", 3, "c. à soupe"),
            _i("Sel, poivre"),
        ),
        steps=(
            "Faites cuire les œufs 9 minutes dans l’eau bouillante, refroidissez-les puis écalez-les.",
            "Faites cuire les haricots verts 6 minutes à l’eau salée et plongez-les dans l’eau glacée.",
            "Coupez les tomates en quartiers et les œufs en deux.",
            "Sur un grand plat, disposez la salade, les haricots, les tomates, le thon émietté, les œufs et "
            "les olives.",
            "Arrosez d’huile d’olive, salez, poivrez et servez bien frais.",
        ),
        tip="Ajoutez quelques filets d’anchois et des radis émincés pour une version plus niçoise encore.",
        author="Camille Roux",
        published=date(2025, 8, 19),
        picture="nicoise.svg",
        picture_alt="Un saladier de salade niçoise : œufs durs, quartiers de tomate, olives noires et haricots verts.",
    ),
    Recipe(
        id="pub-crepes",
        title="Crêpes de la Chandeleur",
        category="desserts",
        kicker="Goûter gourmand",
        intro=(
            "Une pâte sans grumeaux, reposée une heure, et une poêle bien chaude : voilà tout le secret de "
            "crêpes fines et dorées. À garnir de sucre, de confiture ou de pâte à tartiner."
        ),
        preparation=10,
        cooking=30,
        resting=60,
        servings=6,
        difficulty="Facile",
        ingredients=(
            _i("de farine", 250, "g"),
            _i("œufs", 3, one="œuf"),
            _i("de lait", 50, "cl"),
            _i("de beurre fondu", 30, "g"),
            _i("de sucre", 30, "g"),
            _i("sachets de sucre vanillé", 1, one="sachet de sucre vanillé"),
        ),
        steps=(
            "Versez la farine dans un saladier, creusez un puits et cassez-y les œufs.",
            "Incorporez le lait petit à petit en fouettant du centre vers les bords, pour éviter les grumeaux.",
            "Ajoutez le beurre fondu et les sucres, puis laissez reposer la pâte 1 heure.",
            "Faites cuire les crêpes dans une poêle chaude légèrement beurrée, environ 1 minute de chaque côté.",
        ),
        tip="Remplacez un quart du lait par de la bière blonde : les crêpes seront plus légères.",
        author="Sophie Lemaire",
        published=date(2025, 9, 30),
        picture="crepes.svg",
        picture_alt="Une pile de crêpes dorées sur une assiette, avec un pot de confiture.",
    ),
    Recipe(
        id="pub-mousse-au-chocolat",
        title="Mousse au chocolat",
        category="desserts",
        kicker="Le dessert préféré",
        intro=(
            "Aérienne et intense, la mousse au chocolat ne demande que quatre ingrédients, un bon chocolat "
            "noir et un peu de délicatesse au moment d’incorporer les blancs. Préparez-la le matin pour le soir."
        ),
        preparation=20,
        cooking=5,
        resting=180,
        servings=6,
        difficulty="Facile",
        ingredients=(
            _i("de chocolat noir à 70 %", 200, "g"),
            _i("œufs extra-frais", 6, one="œuf extra-frais"),
            _i("de beurre", 30, "g"),
            _i("de sucre", 30, "g"),
        ),
        steps=(
            "Faites fondre le chocolat avec le beurre au bain-marie, puis laissez tiédir.",
            "Séparez les blancs des jaunes. Incorporez les jaunes un à un au chocolat tiède.",
            "Montez les blancs en neige ferme, en ajoutant le sucre à la fin.",
            "Incorporez délicatement les blancs au chocolat en soulevant la masse, puis réservez au moins "
            "3 heures au frais.",
        ),
        tip="Une pincée de fleur de sel sur la mousse au moment de servir réveille le chocolat.",
        author="Hélène Duval",
        published=date(2025, 10, 14),
        picture="mousse.svg",
        picture_alt="Deux verrines de mousse au chocolat, copeaux de chocolat sur le dessus.",
    ),
    Recipe(
        id="pub-gateau-basque",
        title="Gâteau basque à la crème",
        category="desserts",
        kicker="Pâtisserie de tradition",
        intro=(
            "Une pâte sablée au beurre, une crème pâtissière parfumée au rhum et le fameux croisillon sur le "
            "dessus : le gâteau basque se prépare la veille et se partage au goûter comme au dessert."
        ),
        preparation=40,
        cooking=40,
        servings=8,
        difficulty="Moyen",
        ingredients=(
            _i("de farine", 300, "g"),
            _i("de beurre mou", 200, "g"),
            _i("de sucre", 200, "g"),
            _i("œufs", 3, one="œuf"),
            _i("de lait", 50, "cl"),
            _i("de fécule de maïs", 40, "g"),
            _i("de rhum ambré", 2, "c. à soupe"),
            _i("gousses de vanille", 1, one="gousse de vanille"),
        ),
        steps=(
            "Mélangez la farine, le beurre, 150 g de sucre et 2 œufs jusqu’à obtenir une pâte homogène. "
            "Filmez-la et laissez-la 1 heure au frais.",
            "Faites chauffer le lait avec la vanille fendue. Fouettez l’œuf restant avec le reste du sucre et "
            "la fécule, versez le lait chaud, puis faites épaissir 2 minutes sur le feu. Ajoutez le rhum.",
            "Étalez les deux tiers de la pâte dans un moule beurré, garnissez de crème et couvrez avec le reste "
            "de la pâte en soudant bien les bords.",
            "Dorez au jaune d’œuf, tracez un croisillon à la fourchette et enfournez 40 minutes à 180 °C.",
        ),
        tip="Servez-le le lendemain, à température ambiante : la crème aura eu le temps de se raffermir.",
        author="Camille Roux",
        published=date(2025, 11, 18),
        picture="gateau-basque.svg",
        picture_alt="Un gâteau basque doré, son croisillon tracé sur le dessus, une part découpée.",
    ),
)

BY_ID = {recipe.id: recipe for recipe in RECIPES}
# The recipe on the home page's hero.
FEATURED_ID = "pub-ratatouille-provencale"


def recipe_of(recipe_id: str) -> Recipe | None:
    return BY_ID.get(recipe_id)


def newest_first(recipes: Iterable[Recipe]) -> list[Recipe]:
    return sorted(recipes, key=lambda recipe: recipe.published, reverse=True)


def in_category(category: str) -> list[Recipe]:
    return newest_first(recipe for recipe in RECIPES if recipe.category == category)


def related(recipe: Recipe, count: int = 3) -> list[Recipe]:
    """Other recipes to read next: the same category first, then the newest."""
    others = [other for other in newest_first(RECIPES) if other.id != recipe.id]
    others.sort(key=lambda other: other.category != recipe.category)
    return others[:count]
