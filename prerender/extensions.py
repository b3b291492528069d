"""Flask extensions, created unbound; the application factory binds them with init_app."""

from flask_caching import Cache
from flask_cors import CORS

cache = Cache()
cors = CORS()
