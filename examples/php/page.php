<?php

declare(strict_types=1);

/**
 * A retailer's product page built in PHP with prerender's fragments (README.md beside this file).
 *
 *   php examples/php/page.php > page.html             # prints the page
 *   php -S 127.0.0.1:8095 -t examples/php              # serves it (index.php includes this script)
 *
 * Configuration, from the environment only: PRERENDER_URL, SUPPLIER_TOKEN, STORE_ID, and the shopper: USER_ID
 * (logged in) or AUTHLESS_ID (logged out); LANGUAGE_ID (default fr) is optional.
 */

namespace PrerenderExample;

require_once __DIR__ . '/PrerenderClient.php';

// ------------------------------------------------------------------------------------------- the page's data

/** The recipe the page features (GET /v1/recipe-card?recipe_id=...). */
const FEATURED_RECIPE_ID = '1';

/** The shelf: products of the demo catalog (coreapi/seed/data/products.json), as the retailer's own data. */
const SHELF = [
    ['id' => '100001', 'name' => 'Tomates grappe', 'brand' => 'Les Jardins de Demo', 'size' => '500 g', 'price' => '2,49 €'],
    ['id' => '100002', 'name' => 'Tomates rondes bio', 'brand' => 'Demo Market Bio', 'size' => '600 g', 'price' => '3,29 €'],
    ['id' => '100007', 'name' => 'Aubergines', 'brand' => 'Les Jardins de Demo', 'size' => '500 g', 'price' => '1,89 €'],
    ['id' => '100008', 'name' => 'Aubergines bio', 'brand' => 'Demo Market Bio', 'size' => '400 g', 'price' => '2,49 €'],
    ['id' => '100010', 'name' => 'Courgettes', 'brand' => 'Les Jardins de Demo', 'size' => '1 kg', 'price' => '2,59 €'],
    ['id' => '100011', 'name' => 'Courgettes bio', 'brand' => 'Demo Market Bio', 'size' => '500 g', 'price' => '2,19 €'],
    ['id' => '100009', 'name' => 'Aubergines grillées surgelées', 'brand' => "Givré d'Or", 'size' => '450 g', 'price' => '2,79 €'],
    ['id' => '100013', 'name' => 'Poivrons rouges', 'brand' => 'Les Jardins de Demo', 'size' => '500 g', 'price' => '2,79 €'],
];

/** Where the shelf shows a recipe card: after that many products, suggested from the two products before it. */
const CARD_POSITIONS = [2, 6];

// --------------------------------------------------------------------------------------------------- helpers

/** Text for HTML (element content and quoted attributes): everything this page prints itself goes through it. */
function h(string $text): string
{
    return htmlspecialchars($text, ENT_QUOTES | ENT_SUBSTITUTE | ENT_HTML5, 'UTF-8');
}

/**
 * A value as a JavaScript literal, also safe inside an HTML <script> element: <, >, &, ' and " are \u escapes,
 * so no "</script>" can close it.
 */
function js(string $value): string
{
    return json_encode($value, JSON_THROW_ON_ERROR | JSON_HEX_TAG | JSON_HEX_AMP | JSON_HEX_APOS | JSON_HEX_QUOT);
}

/** An environment variable, or $default when it is unset or empty. */
function env(string $name, string $default = ''): string
{
    $value = getenv($name);
    return is_string($value) && $value !== '' ? $value : $default;
}

/** What prerender accepts as a user, authless or session id: 1 to 128 printable ASCII characters, no space. */
function is_valid_id(string $id): bool
{
    return preg_match('/^[\x21-\x7E]{1,128}$/D', $id) === 1;
}

/** The recipe of a card fragment, from its element id (`<prefix>-recipe-card-<recipe id>`, README.md). */
function card_recipe_id(string $card): ?string
{
    return preg_match('/\bid="[a-z0-9-]*?-recipe-card-([^"\s>]+)"/', $card, $match) === 1 ? $match[1] : null;
}

/** Whether a fragment ends with the shopper's credential element (`<svc-shopper ...>`): private ones do. */
function carries_credential(string $fragment): bool
{
    return preg_match('/<[a-z][a-z0-9]*(?:-[a-z0-9]+)*-shopper[\s>]/', $fragment) === 1;
}

/**
 * An id kept in a cookie when the page is served (a stand-in for your site's own session): the cookie's value
 * if it is a valid id, else a new one from $make, then set as the cookie. From the CLI, a new one every run.
 *
 * @param callable(): ?string $make
 */
function remembered(string $cookie, callable $make): ?string
{
    $served = PHP_SAPI !== 'cli';
    $known = $served ? ($_COOKIE[$cookie] ?? null) : null;
    if (is_string($known) && is_valid_id($known)) {
        return $known;
    }
    $id = $make();
    if ($served && $id !== null) {
        setcookie($cookie, $id, ['path' => '/', 'httponly' => true, 'samesite' => 'Lax']);
    }
    return $id;
}

// ------------------------------------------------------------------------------- configuration and the calls

$requestId = bin2hex(random_bytes(16));
$prerenderUrl = rtrim(env('PRERENDER_URL', 'http://127.0.0.1:8000'), '/');
$supplierToken = env('SUPPLIER_TOKEN');
$storeId = env('STORE_ID');
$userId = env('USER_ID');
$authlessId = env('AUTHLESS_ID');
$language = env('LANGUAGE_ID', 'fr');
$sessionId = remembered('demo_session', static fn (): string => bin2hex(random_bytes(16)));

$visitor = new PrerenderClient($prerenderUrl, [], $requestId);
$problems = [];
if (preg_match('#^https?://[^/?\#\s]+(/[^?\#\s]*)?$#Di', $prerenderUrl) !== 1) {
    $problems[] = 'PRERENDER_URL is not an http(s) URL';
}
// Every value below goes into a request header: printable ASCII only, never a line break.
if ($supplierToken !== '' && preg_match('/^[\x21-\x7E]{1,512}$/D', $supplierToken) !== 1) {
    $problems[] = 'SUPPLIER_TOKEN has characters a header cannot carry';
}
if (preg_match('/^[A-Za-z0-9-]{1,64}$/D', $language) !== 1) {
    $problems[] = 'LANGUAGE_ID is not a language id (fr, en, fr-demo)';
}
foreach (['USER_ID' => $userId, 'AUTHLESS_ID' => $authlessId] as $name => $value) {
    if ($value !== '' && !is_valid_id($value)) {
        $problems[] = "{$name} is not 1 to 128 printable ASCII characters without a space";
    }
}

$featured = '';
$cards = [];
$styles = '';
$bootstrap = '';
if ($problems !== []) {
    $visitor->log('configuration: ' . implode('; ', $problems) . ': the page renders without fragments');
} else {
    if ($supplierToken === '') {
        $visitor->log('SUPPLIER_TOKEN is not set: cards come without like button and basket, and no authless id can be issued');
    }
    $visitor = new PrerenderClient(
        $prerenderUrl,
        array_filter(['language-id' => $language, 'session-id' => $sessionId, 'supplier-token' => $supplierToken]),
        $requestId,
    );
    // The shopper: a logged-in user, else the logged-out visitor's authless id, issued by prerender when the
    // visitor has none yet (README: generate-authless-token, called from the server).
    if ($userId !== '') {
        $shopper = ['authorization' => "user_id {$userId}"];
    } else {
        $authlessId = $authlessId !== '' ? $authlessId : remembered('demo_authless_id', $visitor->generateAuthlessId(...));
        $shopper = $authlessId !== null ? ['authless-id' => $authlessId] : null;
    }

    if ($shopper === null) {
        $visitor->log('no shopper identity (USER_ID, AUTHLESS_ID, or an issued authless id): the page renders without fragments');
    } else {
        $prerender = $visitor->withHeaders($shopper);
        $store = $storeId !== '' ? ['store_id' => $storeId] : [];

        // The stylesheets first: a card without them does not work (bare buttons, its drawer at the page's end),
        // so without both no card is asked for. They are public and small (prerender and nginx cache them).
        $base = $prerender->styles('base');
        $cardSheets = $base !== '' ? $prerender->styles('recipe-card') : '';
        if ($base === '' || $cardSheets === '') {
            $prerender->log('the stylesheets did not come: the page renders without cards');
        } else {
            $featured = $prerender->recipeCard(['recipe_id' => FEATURED_RECIPE_ID] + $store);
            // A public card (a supplier without personalization) carries no credential, and the SDK would act for
            // nobody: the bootstrap brings the shopper's (README.md, "Who vouches for the shopper"). Asked at once,
            // before the multiple can spend the page's budget; nothing to ask without a supplier token.
            if ($featured !== '' && !carries_credential($featured) && $supplierToken !== '') {
                $bootstrap = $prerender->bootstrap();
            }

            $contexts = [];
            foreach (CARD_POSITIONS as $position) {
                $contexts[] = ['productIds' => [SHELF[$position - 2]['id'], SHELF[$position - 1]['id']], 'position' => $position];
            }
            $cards = $prerender->recipeCards($contexts, $store, ['keyword' => null, 'categoryId' => null, 'display_variant' => 2]);
            // One card per recipe on the page: a suggestion may be the featured recipe or another slot's, and a
            // second card of one recipe would repeat its element id (and show it twice).
            ksort($cards);
            $featuredRecipe = card_recipe_id($featured);
            $shown = $featuredRecipe === null ? [] : [$featuredRecipe];
            foreach ($cards as $position => $card) {
                $recipe = card_recipe_id($card);
                if ($recipe !== null && in_array($recipe, $shown, true)) {
                    $prerender->log("left out the card of position {$position}: its recipe is already on the page");
                    unset($cards[$position]);
                } elseif ($recipe !== null) {
                    $shown[] = $recipe;
                }
            }

            // The stylesheets in the head only when there is something to style.
            if ($featured !== '' || array_filter($cards) !== []) {
                $styles = $base . $cardSheets;
                // No featured card, and slot cards without a credential either: the bootstrap, as above.
                $credited = carries_credential($featured)
                    || array_filter($cards, fn (string $card): bool => carries_credential($card)) !== [];
                if ($bootstrap === '' && !$credited && $supplierToken !== '') {
                    $bootstrap = $prerender->bootstrap();
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------------------------- the page

if (PHP_SAPI !== 'cli') {
    header('Content-Type: text/html; charset=utf-8');
    // The fragments end with the shopper's credential: the page is for this shopper only.
    header('Cache-Control: private, no-store');
}
$lang = explode('-', $language)[0];
?>
<!DOCTYPE html>
<html lang="<?= h($lang) ?>">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fruits et légumes – Demo Market</title>
<style>
  body { margin: 0; font-family: system-ui, sans-serif; color: #222; }
  header, main { max-width: 1200px; margin: 0 auto; padding: 1rem; }
  .shelf { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 1rem; padding: 0; list-style: none; }
  .product { border: 1px solid #ddd; border-radius: 8px; padding: 1rem; }
  .product__name { margin: 0 0 .25rem; font-size: 1rem; }
  .product__brand, .product__size { margin: 0; color: #666; font-size: .875rem; }
  .product__price { margin: .5rem 0 0; font-weight: bold; }
</style>
<?= $styles /* prerender's <link rel="stylesheet"> tags, as returned */ ?>
</head>
<body>
<header>
  <h1>Fruits et légumes</h1>
  <p class="store"><?= $storeId !== '' ? 'Prix de votre magasin ' . h($storeId) : 'Choisissez un magasin pour voir ses prix' ?></p>
</header>
<main>
  <section class="featured" aria-labelledby="featured-title">
    <h2 id="featured-title">La recette du moment</h2>
    <?= $featured /* the card's fragment, as returned ('' without a card) */ ?>
  </section>
  <section aria-labelledby="shelf-title">
    <h2 id="shelf-title">Nos légumes</h2>
    <ul class="shelf">
<?php foreach (SHELF as $index => $product): ?>
<?php if (($cards[$index] ?? '') !== ''): ?>
      <li class="shelf__recipe" data-position="<?= $index ?>"><?= $cards[$index] ?></li>
<?php endif ?>
      <li class="product" data-product-id="<?= h($product['id']) ?>">
        <h3 class="product__name"><?= h($product['name']) ?></h3>
        <p class="product__brand"><?= h($product['brand']) ?></p>
        <p class="product__size"><?= h($product['size']) ?></p>
        <p class="product__price"><?= h($product['price']) ?></p>
      </li>
<?php endforeach ?>
<?php if (($cards[count(SHELF)] ?? '') !== ''): ?>
      <li class="shelf__recipe" data-position="<?= count(SHELF) ?>"><?= $cards[count(SHELF)] ?></li>
<?php endif ?>
    </ul>
  </section>
</main>
<?= $bootstrap /* the SDK and the shopper's credential, when no card brought them ('' otherwise) */ ?>
<?php if ($featured !== '' || array_filter($cards) !== []): ?>
<script type="module">
// After the fragments' module scripts, which define window.svc (docs/sdk.md). The SDK sends nothing before
// supplier.setup (the drawer, the basket and the likes wait for it), and a basket change waits for the store of
// pos.load. No token here: the SDK acts for the shopper of the fragments' <svc-shopper> credential.
const svc = window.svc;
if (svc) {
  svc.supplier.setup({ language: <?= js($language) ?>, sessionId: <?= js((string) $sessionId) ?> });
  svc.pos.load(<?= $storeId !== '' ? js($storeId) : 'null' ?>);
}
</script>
<?php endif ?>
</body>
</html>
