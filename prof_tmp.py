import cProfile, pstats, time, io, sys
from bench.stack import Stack
from prerender import create_app
from werkzeug.test import EnvironBuilder

def run(app, path, headers, n):
    env = EnvironBuilder(path=path, headers=headers).get_environ()
    def call():
        e = dict(env); e["wsgi.input"] = io.BytesIO(b"")
        out = []
        body = app.wsgi_app(e, lambda s, h, exc=None: out.append(s))
        b = b"".join(body)
        if hasattr(body, "close"): body.close()
        return out[0], b
    for _ in range(200): call()
    t = time.perf_counter()
    for _ in range(n): call()
    return (time.perf_counter() - t) / n

with Stack() as stack:
    app = create_app({"UPSTREAM_URL": stack.coreapi_url})
    H = {"authorization": "user_id demo-user", "language-id": "fr", "session-id": "s-123", "supplier-token": "demo-retailer-token"}
    for _ in range(3):
        h = run(app, "/healthz", {}, 3000)
        c = run(app, "/v1/recipe-card?recipe_id=1&store_id=1001", H, 3000)
        print(f"healthz {h*1e6:.0f} us, card {c*1e6:.0f} us, ratio {h/c:.2f}", file=sys.stderr)
    pr = cProfile.Profile(); pr.enable()
    run(app, "/v1/recipe-card?recipe_id=1&store_id=1001", H, 3000)
    pr.disable()
    st = pstats.Stats(pr, stream=sys.stderr); st.sort_stats("tottime").print_stats(35)
