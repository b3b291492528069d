<?php

declare(strict_types=1);

namespace PrerenderExample;

/**
 * A customer's server-side client of prerender (README.md of the repository, "Integrating prerender").
 *
 * Dependency-free: PHP's own http:// stream wrapper with a stream context, because Debian's php-cli has no curl
 * extension (that is the php-curl package). Every public method returns an empty answer when the call fails
 * (no answer, too slow, a non-2xx status, malformed JSON) and logs why to stderr: a page built with it always
 * renders, without the fragment that failed, and never with a PHP warning in it.
 */
final class PrerenderClient
{
    /** Seconds one call may take in all: connecting, waiting for the answer and reading it. */
    public const CALL_TIMEOUT = 3.0;

    /** Seconds all the calls of one page may take together; calls after that are skipped. */
    public const PAGE_BUDGET = 4.0;

    /** An answer longer than this (bytes) is dropped. */
    public const MAX_ANSWER_BYTES = 2_097_152;

    private readonly float $deadline;

    /**
     * @param string                $baseUrl   prerender's address, e.g. http://127.0.0.1:8000 (no trailing slash)
     * @param array<string, string> $headers   sent on every call: language-id, session-id, supplier-token and,
     *                                         once known, the shopper (authorization or authless-id)
     * @param string                $requestId sent as X-Request-Id and written in the log lines
     * @param float|null            $deadline  the page's deadline (microtime), shared with withHeaders() copies
     */
    public function __construct(
        private readonly string $baseUrl,
        private readonly array $headers,
        public readonly string $requestId,
        ?float $deadline = null,
    ) {
        $this->deadline = $deadline ?? microtime(true) + self::PAGE_BUDGET;
    }

    /** The same client (and page budget) with more headers: the shopper's, once the page knows them. */
    public function withHeaders(array $headers): self
    {
        return new self($this->baseUrl, $headers + $this->headers, $this->requestId, $this->deadline);
    }

    /** `GET /v1/generate-authless-token`: a new id for a logged-out visitor, or null (needs the supplier token). */
    public function generateAuthlessId(): ?string
    {
        $data = $this->requestJson('GET', '/v1/generate-authless-token');
        $id = is_array($data) ? ($data['authless_id'] ?? null) : null;
        if ($data !== null && !is_string($id)) {
            $this->log('GET /v1/generate-authless-token: malformed answer (no "authless_id" string)');
        }
        return is_string($id) ? $id : null;
    }

    /**
     * `GET /v1/styles/<component>`: the `html` to put in the page's `<head>` (its `<link rel="stylesheet">`
     * tags), or '' when the call failed.
     */
    public function styles(string $component): string
    {
        $path = '/v1/styles/' . $component;
        $data = $this->requestJson('GET', $path);
        if ($data === null) {
            return '';
        }
        if (!is_array($data) || !is_string($data['html'] ?? null)) {
            $this->log("GET {$path}: malformed answer (no \"html\" string)");
            return '';
        }
        return $data['html'];
    }

    /**
     * `GET /v1/recipe-card`: one card's fragment, as returned; '' when there is no card (prerender answers 200
     * with an empty body when no recipe fits) or when the call failed.
     *
     * @param array<string, string|int> $query recipe_id or surrounding_products_ids, store_id, display_variant...
     */
    public function recipeCard(array $query): string
    {
        return $this->request('GET', '/v1/recipe-card', $query) ?? '';
    }

    /**
     * `GET /v2/svc-window-bootstrap`: the SDK's module script and the shopper's credential, for a page whose
     * fragments carry none (public ones); '' when the call failed.
     */
    public function bootstrap(): string
    {
        return $this->request('GET', '/v2/svc-window-bootstrap') ?? '';
    }

    /**
     * `POST /v1/recipe-card/multiple`: many cards in one call. Returns each context's fragment by its position
     * ('' where no recipe fits), or [] when the call failed.
     *
     * @param list<array{productIds: list<string>, position: int}> $contexts
     * @param array<string, string|int>                            $query    store_id, display_variant...
     * @param array<string, mixed>                                 $options  keyword, categoryId, display_variant...
     * @return array<int, string>
     */
    public function recipeCards(array $contexts, array $query = [], array $options = []): array
    {
        $path = '/v1/recipe-card/multiple';
        $data = $this->requestJson('POST', $path, $query, ['contexts' => $contexts] + $options);
        if ($data === null) {
            return [];
        }
        $items = is_array($data) ? ($data['data'] ?? null) : null;
        if (!is_array($items) || !array_is_list($items)) {
            $this->log("POST {$path}: malformed answer (no \"data\" list)");
            return [];
        }
        $asked = array_flip(array_column($contexts, 'position'));
        $cards = [];
        foreach ($items as $item) {
            if (!is_array($item) || !is_string($item['html'] ?? null) || !is_int($item['position'] ?? null)) {
                $this->log("POST {$path}: malformed answer (an item without \"html\" string and \"position\" integer)");
                return [];
            }
            if (!isset($asked[$item['position']])) {
                $this->log("POST {$path}: ignored the card of position {$item['position']}, not a position asked for");
                continue;
            }
            $cards[$item['position']] = $item['html'];
        }
        return $cards;
    }

    /** A line on stderr (the terminal, or the server's log under `php -S`), never in the page. */
    public function log(string $message): void
    {
        file_put_contents('php://stderr', sprintf("%s prerender [%s] %s\n", gmdate('Y-m-d\TH:i:s\Z'), $this->requestId, $message));
    }

    /** The decoded JSON of a 2xx answer, or null when the call failed or the body is not JSON (logged). */
    private function requestJson(string $method, string $path, array $query = [], ?array $json = null): mixed
    {
        $body = $this->request($method, $path, $query, $json);
        if ($body === null) {
            return null;
        }
        try {
            return json_decode($body, true, 32, JSON_THROW_ON_ERROR);
        } catch (\JsonException $error) {
            $this->log("{$method} {$path}: malformed JSON ({$error->getMessage()})");
            return null;
        }
    }

    /**
     * One call: the body of a 2xx answer, or null when it failed (logged).
     *
     * PHP's http wrapper has a single `timeout`, for connecting and for each wait for data; it gets what is left
     * of the call's CALL_TIMEOUT (and of the page's budget), and the body is read against the same deadline, so a
     * call never takes much longer than that in all. A refused connection fails at once.
     */
    private function request(string $method, string $path, array $query = [], ?array $json = null): ?string
    {
        $what = "{$method} {$path}";
        $timeout = min(self::CALL_TIMEOUT, $this->deadline - microtime(true));
        if ($timeout <= 0.0) {
            $this->log("{$what}: skipped, the page's budget of " . self::PAGE_BUDGET . ' s is spent');
            return null;
        }
        $deadline = microtime(true) + $timeout;

        $headers = $this->headers + ['X-Request-Id' => $this->requestId, 'Connection' => 'close'];
        $content = '';
        if ($json !== null) {
            $content = json_encode($json, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
            $headers['Content-Type'] = 'application/json';
        }
        $lines = [];
        foreach ($headers as $name => $value) {
            $lines[] = "{$name}: {$value}";
        }
        $url = $this->baseUrl . $path;
        if ($query !== []) {
            $url .= '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986);
        }
        $context = stream_context_create([
            'http' => [
                'method' => $method,
                'header' => $lines,
                'content' => $content,
                'timeout' => $timeout,
                'ignore_errors' => true, // a 4xx or 5xx is an answer to read and log, not a failure to open
                'follow_location' => 0,  // a fragment route never redirects
                'protocol_version' => 1.1,
            ],
        ]);

        // The stream functions report failures as PHP warnings: collect them for the log line instead, so that
        // none reaches the page whatever display_errors says.
        $warnings = [];
        set_error_handler(static function (int $level, string $message) use (&$warnings): bool {
            $warnings[] = $message;
            return true;
        });
        try {
            $stream = fopen($url, 'rb', false, $context);
            if ($stream === false) {
                $waited = $timeout - ($deadline - microtime(true));
                $reason = $waited >= $timeout - 0.05 ? sprintf('timed out after %.1f s', $timeout) : 'no answer';
                $this->log("{$what}: {$reason} (" . (end($warnings) ?: 'unknown error') . ')');
                return null;
            }
            try {
                $responseHeaders = stream_get_meta_data($stream)['wrapper_data'] ?? [];
                $body = '';
                while (!feof($stream)) {
                    $left = $deadline - microtime(true);
                    if ($left <= 0.0) {
                        $this->log(sprintf('%s: timed out after %.1f s', $what, $timeout));
                        return null;
                    }
                    stream_set_timeout($stream, (int) $left, (int) (fmod($left, 1.0) * 1_000_000));
                    $chunk = fread($stream, 65536);
                    if ($chunk === false || stream_get_meta_data($stream)['timed_out']) {
                        $this->log(sprintf('%s: timed out after %.1f s', $what, $timeout));
                        return null;
                    }
                    $body .= $chunk;
                    if (strlen($body) > self::MAX_ANSWER_BYTES) {
                        $this->log("{$what}: answer longer than " . self::MAX_ANSWER_BYTES . ' bytes, dropped');
                        return null;
                    }
                }
            } finally {
                fclose($stream);
            }
        } finally {
            restore_error_handler();
        }

        [$status, $length] = self::statusAndLength(is_array($responseHeaders) ? $responseHeaders : []);
        if ($status === null) {
            $this->log("{$what}: malformed answer (no HTTP status line)");
            return null;
        }
        if ($status < 200 || $status > 299) {
            $excerpt = substr(trim((string) preg_replace('/\s+/', ' ', $body)), 0, 300);
            $this->log("{$what}: HTTP {$status}" . ($excerpt === '' ? '' : " {$excerpt}"));
            return null;
        }
        if ($length !== null && $length !== strlen($body)) {
            $this->log("{$what}: answer cut short ({$length} bytes announced, " . strlen($body) . ' read)');
            return null;
        }
        return $body;
    }

    /**
     * The status and the Content-Length (null when absent) of the response headers the http wrapper read.
     *
     * @param array<mixed> $lines
     * @return array{0: int|null, 1: int|null}
     */
    private static function statusAndLength(array $lines): array
    {
        $status = null;
        $length = null;
        foreach ($lines as $line) {
            if (!is_string($line)) {
                continue;
            }
            if (preg_match('#^HTTP/\d(?:\.\d)?\s+(\d{3})\b#', $line, $match) === 1) {
                $status = (int) $match[1];
                $length = null; // the headers of a new response (an interim 1xx came before)
            } elseif (preg_match('/^content-length:\s*(\d+)\s*$/i', $line, $match) === 1) {
                $length = (int) $match[1];
            }
        }
        return [$status, $length];
    }
}
