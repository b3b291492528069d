/*
 * A customer's page builder in Java 17, without dependencies: it calls prerender from the server (README.md,
 * "Integrating prerender") and writes one complete HTML page to stdout, with
 *
 *   - the stylesheets of GET /v1/styles/base and GET /v1/styles/recipe-card in <head>;
 *   - one card, GET /v1/recipe-card?recipe_id=...&store_id=...;
 *   - a shelf of products with a card slot after every two of them, filled by one
 *     POST /v1/recipe-card/multiple (each slot's two products are its context, its number the position).
 *
 * Run it with `java examples/java/PrerenderPage.java` (Java 17 compiles and runs a single source file); the
 * environment variables are described in examples/java/README.md. The four calls are independent: they go
 * out together on one HttpClient and the page waits for the slowest (at most the request timeout). A fifth,
 * GET /v2/svc-window-bootstrap, follows only when no card came with the shopper's credential (a supplier
 * without personalization): one request timeout more at worst.
 *
 * A fragment that is late, refused, or malformed is left out and logged on stderr: the page is always
 * complete, the exit status 0. stdout carries the page and nothing else.
 */

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The entry point: read the configuration, fetch the fragments, print the page. */
public final class PrerenderPage {

    private PrerenderPage() {}

    public static void main(String[] args) {
        Config config = Config.fromEnvironment(System.getenv());
        Fragments fragments;
        try {
            fragments = Fragments.fetch(config);
        } catch (RuntimeException unexpected) {
            // A bug of this page must not cost the shopper the page: render it without fragments.
            Log.warn("fragments left out after an unexpected error: " + unexpected);
            fragments = Fragments.NONE;
        }
        // The page is UTF-8 (<meta charset>) whatever the platform's default charset (Java 17 uses the
        // locale's for System.out: ASCII under LANG=C would turn every "é" into "?").
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        out.print(Page.render(config, fragments));
        out.flush();
    }
}

/**
 * What the page needs to know, from the environment. Blank values count as unset.
 *
 * @param prerenderUrl  PRERENDER_URL, the service's base URL (default http://127.0.0.1:8000, `make run`'s)
 * @param supplierToken SUPPLIER_TOKEN, sent server to server only, never written in the page
 * @param storeId       STORE_ID, the store prices are for (optional)
 * @param userId        USER_ID, a logged-in shopper (wins over AUTHLESS_ID)
 * @param authlessId    AUTHLESS_ID, a logged-out visitor's id from generate-authless-token
 * @param languageId    LANGUAGE_ID (default fr)
 * @param sessionId     SESSION_ID, the browsing session (default: a new one)
 * @param recipeId      RECIPE_ID, the featured card's recipe (default 1; "none" for no featured card)
 * @param productIds    PRODUCT_IDS, comma-separated, the shelf (default: four products of the demo catalog)
 */
record Config(
        String prerenderUrl,
        Optional<String> supplierToken,
        Optional<String> storeId,
        Optional<String> userId,
        Optional<String> authlessId,
        String languageId,
        String sessionId,
        Optional<String> recipeId,
        List<String> productIds) {

    static Config fromEnvironment(Map<String, String> env) {
        Optional<String> recipe = value(env, "RECIPE_ID");
        return new Config(
                value(env, "PRERENDER_URL").orElse("http://127.0.0.1:8000"),
                value(env, "SUPPLIER_TOKEN"),
                value(env, "STORE_ID"),
                value(env, "USER_ID"),
                value(env, "AUTHLESS_ID"),
                value(env, "LANGUAGE_ID").orElse("fr"),
                value(env, "SESSION_ID").orElseGet(() -> "page-" + UUID.randomUUID()),
                recipe.isEmpty() ? Optional.of("1") : recipe.filter(id -> !id.equals("none")),
                value(env, "PRODUCT_IDS").map(Config::splitIds).orElse(List.of("100001", "100002", "100010", "100011")));
    }

    private static Optional<String> value(Map<String, String> env, String name) {
        return Optional.ofNullable(env.get(name)).map(String::strip).filter(v -> !v.isEmpty());
    }

    private static List<String> splitIds(String ids) {
        List<String> result = new ArrayList<>();
        for (String id : ids.split(",")) {
            if (!id.isBlank()) {
                result.add(id.strip());
            }
        }
        return List.copyOf(result);
    }

    /** The shopper's headers can be sent: prerender refuses every fragment route without an identity. */
    boolean hasShopper() {
        return userId.isPresent() || authlessId.isPresent();
    }

    /** prerender's rule for a user, authless or session id (README.md, "Headers"): 1 to 128 printable ASCII
     * characters, no space. */
    private static final Pattern IDENTITY = Pattern.compile("[\\x21-\\x7E]{1,128}");
    /** A language id: fr, en, or a retailer's variant such as fr-demo. */
    private static final Pattern LANGUAGE = Pattern.compile("[A-Za-z0-9-]{1,64}");

    /**
     * What prerender would refuse in the page's own settings, if anything: every call would be a 400. Checked here
     * rather than left to prerender: Java's HTTP client sends a character outside ASCII as "?", so "Zoé" and "Zoë"
     * would reach prerender as the one shopper "Zo?", with one basket and one credential.
     */
    Optional<String> configurationProblem() {
        Map<String, Optional<String>> ids = new LinkedHashMap<>();
        ids.put("USER_ID", userId);
        ids.put("AUTHLESS_ID", authlessId);
        ids.put("SESSION_ID", Optional.of(sessionId));
        for (Map.Entry<String, Optional<String>> id : ids.entrySet()) {
            if (id.getValue().filter(value -> !IDENTITY.matcher(value).matches()).isPresent()) {
                return Optional.of(id.getKey() + " is not 1 to 128 printable ASCII characters without a space");
            }
        }
        if (!LANGUAGE.matcher(languageId).matches()) {
            return Optional.of("LANGUAGE_ID is not a language id (fr, en, fr-demo)");
        }
        return Optional.empty();
    }

    /** The shelf's card slots: products 1-2 around slot 1, 3-4 around slot 2, ... (an odd last one has none). */
    Map<Long, List<String>> slots() {
        Map<Long, List<String>> slots = new LinkedHashMap<>();
        for (int i = 0; i + 1 < productIds.size() && slots.size() < Fragments.MAX_CONTEXTS; i += 2) {
            slots.put((long) slots.size() + 1, List.of(productIds.get(i), productIds.get(i + 1)));
        }
        return slots;
    }
}

/**
 * The fragments prerender gave this page: stylesheet URLs, the featured card ("" for none) and each slot's
 * card by position (slots without a card are absent).
 */
record Fragments(List<String> stylesheets, String card, Map<Long, String> slotCards, String bootstrap) {

    static final Fragments NONE = new Fragments(List.of(), "", Map.of(), "");

    /** README.md: at most 50 contexts per multiple request. */
    static final int MAX_CONTEXTS = 50;

    static Fragments fetch(Config config) {
        if (!config.hasShopper()) {
            Log.warn("neither USER_ID nor AUTHLESS_ID is set: prerender refuses fragment calls without a shopper; "
                    + "rendering the page without fragments");
            return NONE;
        }
        if (config.supplierToken().isEmpty()) {
            Log.warn("SUPPLIER_TOKEN is not set: cards come without like button, basket button and credential");
        }
        Optional<String> problem = config.configurationProblem();
        if (problem.isPresent()) {
            Log.warn(problem.get() + ": rendering the page without fragments");
            return NONE;
        }
        // Printable ASCII only: a control character could split the header, and Java's client would send any
        // other character as "?".
        Optional<String> badHeader = PrerenderClient.headers(config).entrySet().stream()
                .filter(header -> header.getValue().chars().anyMatch(c -> (c < 0x20 && c != '\t') || c > 0x7e))
                .map(Map.Entry::getKey)
                .findFirst();
        if (badHeader.isPresent()) {
            // Named, never printed: the value may be the supplier token.
            Log.warn("the " + badHeader.get() + " header would hold a control character or one outside ASCII: "
                    + "rendering the page without fragments");
            return NONE;
        }
        PrerenderClient prerender = new PrerenderClient(config);
        Map<String, String> store = config.storeId().map(id -> Map.of("store_id", id)).orElse(Map.of());

        // Independent calls: all sent now, then awaited together. Each future completes normally, with
        // Optional.empty() when its call failed (PrerenderClient logs why).
        CompletableFuture<Optional<String>> baseStyles = prerender.get("/styles/base", Map.of());
        CompletableFuture<Optional<String>> cardStyles = prerender.get("/styles/recipe-card", Map.of());
        CompletableFuture<Optional<String>> card = config.recipeId()
                .map(recipe -> {
                    Map<String, String> query = new LinkedHashMap<>();
                    query.put("recipe_id", recipe);
                    query.putAll(store);
                    return prerender.get("/recipe-card", query);
                })
                .orElseGet(() -> CompletableFuture.completedFuture(Optional.empty()));
        Map<Long, List<String>> slots = config.slots();
        if (config.productIds().size() / 2 > slots.size()) {
            Log.warn("more than " + MAX_CONTEXTS + " card slots: the shelf's further slots stay empty");
        }
        CompletableFuture<Optional<String>> multiple = slots.isEmpty()
                ? CompletableFuture.completedFuture(Optional.empty())
                : prerender.postJson("/recipe-card/multiple", store, multipleBody(slots));
        CompletableFuture.allOf(baseStyles, cardStyles, card, multiple).join();

        List<String> base = stylesheetLinks("/styles/base", baseStyles.join());
        List<String> cardSheets = stylesheetLinks("/styles/recipe-card", cardStyles.join());
        String featured = card.join().orElse("").strip();
        Map<Long, String> cards = onePerRecipe(featured, slotCards(slots, multiple.join()));
        if (base.isEmpty() || cardSheets.isEmpty()) {
            // A card without its stylesheets does not work (bare buttons, its drawer at the page's end).
            Log.warn("the stylesheets did not come: the page renders without cards");
            return NONE;
        }
        if (featured.isEmpty() && cards.isEmpty()) { // slotCards keeps only the slots that got a card
            return NONE; // nothing to style: no stylesheet either
        }
        String bootstrap = "";
        if (config.supplierToken().isPresent()
                && !carriesCredential(featured)
                && cards.values().stream().noneMatch(Fragments::carriesCredential)) {
            // Public fragments (a fixed card of a supplier without personalization) carry no credential, and the
            // SDK would act for nobody: the bootstrap brings the shopper's (README.md, "Who vouches for the
            // shopper").
            bootstrap = prerender.bootstrap().join().orElse("").strip();
        }
        Set<String> links = new LinkedHashSet<>(); // base first; a sheet named by both routes once
        links.addAll(base);
        links.addAll(cardSheets);
        return new Fragments(List.copyOf(links), featured, cards, bootstrap);
    }

    /** The shopper's credential element prerender appends to a private fragment (`<svc-shopper ...>`). */
    private static final Pattern CREDENTIAL = Pattern.compile("<[a-z][a-z0-9]*(?:-[a-z0-9]+)*-shopper[\\s>]");

    static boolean carriesCredential(String fragment) {
        return CREDENTIAL.matcher(fragment).find();
    }

    /** A card's element id: `<prefix>-recipe-card-<recipe id>` (README.md), one per recipe on a page. */
    private static final Pattern CARD_ID = Pattern.compile("\\bid=\"[a-z0-9-]*?-recipe-card-([^\"\\s>]+)\"");

    /**
     * The slot cards whose recipe is not on the page yet: a suggestion may be the featured recipe, or another
     * slot's, and a second card of one recipe would repeat its element id (and show it twice). In page order.
     */
    static Map<Long, String> onePerRecipe(String featured, Map<Long, String> cards) {
        Set<String> shown = new LinkedHashSet<>();
        recipeOf(featured).ifPresent(shown::add);
        Map<Long, String> kept = new TreeMap<>();
        for (Map.Entry<Long, String> slot : new TreeMap<>(cards).entrySet()) {
            Optional<String> recipe = recipeOf(slot.getValue());
            if (recipe.isPresent() && !shown.add(recipe.get())) {
                Log.warn("left out the card of position " + slot.getKey() + ": its recipe is already on the page");
                continue;
            }
            kept.put(slot.getKey(), slot.getValue());
        }
        return kept;
    }

    private static Optional<String> recipeOf(String card) {
        Matcher id = CARD_ID.matcher(card);
        return id.find() ? Optional.of(id.group(1)) : Optional.empty();
    }

    /** {"contexts": [{"productIds": [a, b], "position": n}, ...], "display_variant": 2} */
    static String multipleBody(Map<Long, List<String>> slots) {
        StringBuilder body = new StringBuilder("{\"contexts\": [");
        String separator = "";
        for (Map.Entry<Long, List<String>> slot : slots.entrySet()) {
            List<String> ids = slot.getValue();
            body.append(separator)
                    .append("{\"productIds\": [").append(Json.quote(ids.get(0))).append(", ")
                    .append(Json.quote(ids.get(1))).append("], \"position\": ").append(slot.getKey()).append('}');
            separator = ", ";
        }
        return body.append("], \"display_variant\": 2}").toString();
    }

    /**
     * The `links` of a styles answer, {"links": ["https://...css", ...], "html": "<link ...>..."}. The page
     * writes the <link> tags itself from the URLs rather than inserting `html`: the two routes' sheets are
     * merged without duplicates and <head> stays markup of the page (every URL attribute-escaped).
     */
    static List<String> stylesheetLinks(String route, Optional<String> answer) {
        if (answer.isEmpty()) {
            return List.of();
        }
        Object links;
        try {
            links = Json.parse(answer.get()) instanceof Map<?, ?> object ? object.get("links") : null;
        } catch (Json.MalformedJsonException error) {
            Log.warn("GET " + route + ": malformed JSON, stylesheets left out: " + error.getMessage());
            return List.of();
        }
        if (!(links instanceof List<?> urls)) {
            Log.warn("GET " + route + ": no \"links\" array in the answer, stylesheets left out");
            return List.of();
        }
        List<String> result = new ArrayList<>();
        for (Object url : urls) {
            if (url instanceof String link && isHttpUrl(link)) {
                result.add(link);
            } else {
                Log.warn("GET " + route + ": ignored a link that is not an http(s) URL: " + Log.excerpt(url));
            }
        }
        return result;
    }

    private static boolean isHttpUrl(String link) {
        try {
            String scheme = URI.create(link).getScheme();
            return scheme != null && (scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"));
        } catch (IllegalArgumentException notAUri) {
            return false;
        }
    }

    /**
     * The multiple's answer, {"data": [{"html": "...", "position": 1}, ...]}, as position -> html for the
     * slots this page asked for and that got a card ("" means no recipe fits there).
     */
    static Map<Long, String> slotCards(Map<Long, List<String>> slots, Optional<String> answer) {
        if (answer.isEmpty()) {
            return Map.of();
        }
        Object data;
        try {
            data = Json.parse(answer.get()) instanceof Map<?, ?> object ? object.get("data") : null;
        } catch (Json.MalformedJsonException error) {
            Log.warn("POST /recipe-card/multiple: malformed JSON, slot cards left out: " + error.getMessage());
            return Map.of();
        }
        if (!(data instanceof List<?> items)) {
            Log.warn("POST /recipe-card/multiple: no \"data\" array in the answer, slot cards left out");
            return Map.of();
        }
        Map<Long, String> cards = new TreeMap<>();
        for (Object item : items) {
            if (!(item instanceof Map<?, ?> entry
                    && entry.get("html") instanceof String html
                    && entry.get("position") instanceof BigDecimal number)) {
                Log.warn("POST /recipe-card/multiple: ignored an item without a string \"html\" and a number "
                        + "\"position\": " + Log.excerpt(item));
                continue;
            }
            Optional<Long> position = Json.exactLong(number).filter(slots::containsKey);
            if (position.isEmpty()) {
                Log.warn("POST /recipe-card/multiple: ignored the card of position " + number
                        + ", not a slot of this page");
            } else if (!html.isBlank()) {
                cards.put(position.get(), html.strip());
            }
        }
        return cards;
    }
}

/**
 * prerender's fragment routes (v1) with the specification's headers. One HttpClient for every call (it pools
 * connections); a connect timeout and a whole-exchange timeout; errors become Optional.empty(), logged.
 */
final class PrerenderClient {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(3);

    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(CONNECT_TIMEOUT)
            // HTTP/1.1: over http:// the default (HTTP/2) would add an h2c upgrade attempt to every call.
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    private final String root;
    private final Map<String, String> headers;

    PrerenderClient(Config config) {
        this.root = config.prerenderUrl().replaceAll("/+$", "");
        this.headers = headers(config);
    }

    /** README.md, "Headers (fragment routes)". */
    static Map<String, String> headers(Config config) {
        Map<String, String> headers = new LinkedHashMap<>();
        config.supplierToken().ifPresent(token -> headers.put("supplier-token", token));
        if (config.userId().isPresent()) {
            headers.put("authorization", "user_id " + config.userId().get());
        } else {
            config.authlessId().ifPresent(id -> headers.put("authless-id", id));
        }
        headers.put("language-id", config.languageId());
        headers.put("session-id", config.sessionId());
        headers.put("x-request-id", "page-" + UUID.randomUUID()); // one id for this page's calls, in prerender's logs
        return Map.copyOf(headers);
    }

    /** GET /v1 + path. */
    CompletableFuture<Optional<String>> get(String path, Map<String, String> query) {
        return send("GET " + path, () -> request("/v1" + path, query).GET());
    }

    /** GET /v2/svc-window-bootstrap: the SDK and the shopper's credential, for a page whose fragments carry none. */
    CompletableFuture<Optional<String>> bootstrap() {
        String path = "/v2/svc-window-bootstrap";
        return send("GET " + path, () -> request(path, Map.of()).GET());
    }

    /** POST /v1 + path. */
    CompletableFuture<Optional<String>> postJson(String path, Map<String, String> query, String json) {
        return send("POST " + path, () -> request("/v1" + path, query)
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8)));
    }

    private HttpRequest.Builder request(String path, Map<String, String> query) {
        StringBuilder url = new StringBuilder(root).append(path);
        char separator = '?';
        for (Map.Entry<String, String> parameter : query.entrySet()) {
            url.append(separator)
                    .append(URLEncoder.encode(parameter.getKey(), StandardCharsets.UTF_8))
                    .append('=')
                    .append(URLEncoder.encode(parameter.getValue(), StandardCharsets.UTF_8));
            separator = '&';
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(url.toString())).timeout(REQUEST_TIMEOUT);
        headers.forEach(builder::header);
        return builder;
    }

    /** The body of a 2xx answer, or empty (logged) for any failure. Never completes exceptionally. */
    private CompletableFuture<Optional<String>> send(String call, Supplier<HttpRequest.Builder> request) {
        HttpRequest built;
        try {
            built = request.get().build();
        } catch (IllegalArgumentException invalid) {
            // A PRERENDER_URL that is no http(s) URL (header values were checked before).
            Log.warn(call + ": not sent, invalid request: " + invalid.getMessage());
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return http.sendAsync(built, HttpResponse.BodyHandlers.ofString())
                // HttpRequest.timeout may stop counting once the headers are in: this bounds the body too.
                .orTimeout(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .handle((response, error) -> {
                    if (error != null) {
                        Log.warn(call + " failed: " + describe(error));
                        return Optional.empty();
                    }
                    if (response.statusCode() / 100 != 2) {
                        Log.warn(call + " answered " + response.statusCode() + ": " + Log.excerpt(response.body()));
                        return Optional.empty();
                    }
                    return Optional.of(response.body());
                });
    }

    private static String describe(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof TimeoutException || cause instanceof HttpTimeoutException) {
            return "timed out (" + REQUEST_TIMEOUT.toMillis() + " ms to answer, "
                    + CONNECT_TIMEOUT.toMillis() + " ms to connect)";
        }
        if (cause instanceof ConnectException) {
            return "could not connect (" + (cause.getMessage() != null ? cause.getMessage() : "refused") + ")";
        }
        if (cause instanceof IOException) {
            return cause.getClass().getSimpleName() + ": " + cause.getMessage();
        }
        return cause.toString();
    }
}

/** The page's markup. Every value of the page's own input is escaped; fragments are inserted as they are. */
final class Page {

    private Page() {}

    static String render(Config config, Fragments fragments) {
        String store = config.storeId().orElse("(no store)");
        StringBuilder html = new StringBuilder(8192);
        html.append("<!DOCTYPE html>\n")
                .append("<html lang=\"").append(Html.escape(language(config.languageId()))).append("\">\n")
                .append("<head>\n")
                .append("<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<title>Products and recipes, store ").append(Html.escape(store)).append("</title>\n");
        for (String url : fragments.stylesheets()) {
            html.append("<link rel=\"stylesheet\" href=\"").append(Html.escape(url)).append("\">\n");
        }
        html.append("</head>\n<body>\n<main>\n")
                .append("<h1>Products and recipes, store ").append(Html.escape(store)).append("</h1>\n");
        // A card's title is an <h3> (README.md, "one card"): each fragment goes under an <h2> of the page, so the headings
        // skip no level.
        if (!fragments.card().isEmpty()) {
            html.append("<section class=\"featured-recipe\" aria-labelledby=\"featured-title\" data-recipe-id=\"")
                    .append(Html.escape(config.recipeId().orElse(""))).append("\">\n")
                    .append("<h2 id=\"featured-title\">Recipe of the moment</h2>\n")
                    .append(fragments.card()).append('\n')
                    .append("</section>\n");
        }
        html.append("<h2>Products</h2>\n<ul class=\"shelf\">\n");
        Map<Long, List<String>> slots = config.slots();
        List<String> products = config.productIds();
        for (int i = 0; i < products.size(); i++) {
            String id = products.get(i);
            html.append("<li class=\"product\" data-product-id=\"").append(Html.escape(id)).append("\">Product ")
                    .append(Html.escape(id)).append("</li>\n");
            long slot = i / 2 + 1;
            String card = fragments.slotCards().get(slot);
            if (i % 2 == 1 && slots.containsKey(slot) && card != null) {
                html.append("<li class=\"recipe-slot\" data-position=\"").append(slot).append("\">\n")
                        .append(card).append('\n')
                        .append("</li>\n");
            }
        }
        html.append("</ul>\n</main>\n");
        if (!fragments.bootstrap().isEmpty()) {
            html.append(fragments.bootstrap()).append('\n');
        }
        if (!fragments.card().isEmpty() || !fragments.slotCards().isEmpty()) {
            // After the fragments' module scripts, which define window.svc (docs/sdk.md). No token here: the
            // SDK acts for the shopper of the fragments' <svc-shopper> credential.
            html.append("<script type=\"module\">\n")
                    .append("const svc = window.svc;\n")
                    .append("if (svc) {\n")
                    .append("  svc.supplier.setup({ language: ").append(Json.quote(config.languageId()))
                    .append(", sessionId: ").append(Json.quote(config.sessionId())).append(" });\n")
                    .append("  svc.pos.load(").append(config.storeId().map(Json::quote).orElse("null")).append(");\n")
                    .append("}\n")
                    .append("</script>\n");
        }
        return html.append("</body>\n</html>\n").toString();
    }

    /** "fr-demo" (a language with the retailer's text overrides) is written in French: lang="fr". */
    private static String language(String languageId) {
        int dash = languageId.indexOf('-');
        return (dash > 0 ? languageId.substring(0, dash) : languageId).toLowerCase(Locale.ROOT);
    }
}

final class Html {

    private Html() {}

    /** Escapes text for an element's content or a double- or single-quoted attribute value. */
    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&#39;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }
}

/**
 * A small, strict JSON reader (RFC 8259) and string writer, enough for prerender's answers: objects become
 * Maps, arrays Lists, strings Strings, numbers BigDecimals, true/false Booleans, null null. Anything else,
 * trailing text included, is a MalformedJsonException.
 */
final class Json {

    static final class MalformedJsonException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MalformedJsonException(String message) {
            super(message);
        }
    }

    private static final int MAX_DEPTH = 64;

    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        Json reader = new Json(text);
        reader.skipWhitespace();
        Object value = reader.value(0);
        reader.skipWhitespace();
        if (reader.at != text.length()) {
            throw reader.error("unexpected text after the value");
        }
        return value;
    }

    /** A number's value as a long when it is an integer that fits one. */
    static Optional<Long> exactLong(BigDecimal number) {
        try {
            return Optional.of(number.longValueExact());
        } catch (ArithmeticException notAnExactLong) {
            return Optional.empty();
        }
    }

    /**
     * A JSON string literal of `value`, also safe inside an HTML <script> element: <, > and & are written as
     * \\u escapes (no "</script>" can close it), as are U+2028 and U+2029.
     */
    static String quote(String value) {
        StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nested too deeply");
        }
        if (at >= text.length()) {
            throw error("unexpected end");
        }
        return switch (text.charAt(at)) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> object = new LinkedHashMap<>();
        at++; // {
        skipWhitespace();
        if (consume('}')) {
            return object;
        }
        do {
            skipWhitespace();
            if (at >= text.length() || text.charAt(at) != '"') {
                throw error("expected a member name");
            }
            String name = string();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            object.put(name, value(depth + 1));
            skipWhitespace();
        } while (consume(','));
        expect('}');
        return object;
    }

    private List<Object> array(int depth) {
        List<Object> array = new ArrayList<>();
        at++; // [
        skipWhitespace();
        if (consume(']')) {
            return array;
        }
        do {
            skipWhitespace();
            array.add(value(depth + 1));
            skipWhitespace();
        } while (consume(','));
        expect(']');
        return array;
    }

    private String string() {
        StringBuilder string = new StringBuilder();
        at++; // opening quote
        while (true) {
            if (at >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return string.toString();
            }
            if (c < 0x20) {
                throw error("control character in a string");
            }
            if (c != '\\') {
                string.append(c);
                continue;
            }
            if (at >= text.length()) {
                throw error("unterminated escape");
            }
            char escape = text.charAt(at++);
            switch (escape) {
                case '"', '\\', '/' -> string.append(escape);
                case 'b' -> string.append('\b');
                case 'f' -> string.append('\f');
                case 'n' -> string.append('\n');
                case 'r' -> string.append('\r');
                case 't' -> string.append('\t');
                case 'u' -> string.append(hexCodeUnit()); // a surrogate pair is two escapes, appended in turn
                default -> throw error("invalid escape \\" + escape);
            }
        }
    }

    private char hexCodeUnit() {
        if (at + 4 > text.length()) {
            throw error("truncated \\u escape");
        }
        int code = 0;
        for (int end = at + 4; at < end; at++) {
            int digit = Character.digit(text.charAt(at), 16);
            if (digit < 0) {
                throw error("invalid \\u escape");
            }
            code = code * 16 + digit;
        }
        return (char) code;
    }

    private BigDecimal number() {
        int start = at;
        consume('-');
        if (!consume('0')) {
            if (digits() == 0) {
                throw error("unexpected character");
            }
        }
        if (consume('.') && digits() == 0) {
            throw error("expected digits after the decimal point");
        }
        if (consume('e') || consume('E')) {
            if (!consume('+')) {
                consume('-');
            }
            if (digits() == 0) {
                throw error("expected digits in the exponent");
            }
        }
        try {
            return new BigDecimal(text.substring(start, at));
        } catch (NumberFormatException outOfRange) {
            throw error("number out of range");
        }
    }

    private int digits() {
        int start = at;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
            at++;
        }
        return at - start;
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw error("unexpected character");
        }
        at += word.length();
        return value;
    }

    private boolean consume(char c) {
        if (at < text.length() && text.charAt(at) == c) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!consume(c)) {
            throw error("expected '" + c + "'");
        }
    }

    private void skipWhitespace() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    private MalformedJsonException error(String problem) {
        return new MalformedJsonException(problem + " at offset " + at);
    }
}

/** Diagnostics go to stderr, one line each: stdout is the page. */
final class Log {

    private Log() {}

    static void warn(String message) {
        System.err.println("prerender-page: " + message);
    }

    /** A value for a log line: on one line, at most 200 characters. */
    static String excerpt(Object value) {
        String text = String.valueOf(value).replaceAll("\\s+", " ").strip();
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }
}
