// The maker's documented setup class (its web SSR documentation, "Example class"), as a retailer who integrated
// the maker's browser SDK has it, with `window.mealz` renamed `window.svc` (docs/sdk.md, section 6). Only the
// class's placeholders are filled in, with Demo Market's own cart and header forms ("Add {quantity} number of
// products in the cart", "Navigate to login page"...); the TypeScript-only lines are left out. Demo Market runs
// its own integration (svc-setup.js); tests/browser/test_maker_drop_in.py runs this one on the shop's pages.
const context = JSON.parse(document.getElementById("shop-context")?.textContent || "{}");

// The maker's class holds its supplier token in the page: prerender ignores it (docs/sdk.md, section 6).
const svcToken = "aToken";

/** Demo Market's cart: [{id, quantity}] deltas (negative removes), then the retailer tells the SDK. */
async function updateShopCart(deltas) {
  const response = await fetch(context.cart.linesUrl, {
    method: "POST",
    credentials: "same-origin",
    cache: "no-store",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(deltas),
  });
  if (!response.ok) throw new Error(`the cart answered ${response.status}`);
  const { lines, count } = await response.json();
  for (const badge of document.querySelectorAll("[data-cart-count]")) badge.textContent = String(count);
  // "Call this method at the point of your app where the user's cart is updated".
  setup?.sendCartToSvc({ products: lines });
  return lines;
}

/** Brings one of the header's forms forward (the shop's login or store picker): the hook's "navigate". */
function bringForward(selector, control) {
  const form = document.querySelector(selector);
  form?.setAttribute("data-requested", "");
  /** @type {HTMLElement | null | undefined} */ (form?.querySelector(control))?.focus();
}

/** @type {Svc | null} the instance the shop's cart reports to */
let setup = null;

// Example Setup
export class Svc {
  constructor() {
    window.svc.supplier.setupWithToken(svcToken);
    window.svc.user.setLanguage(context.language || "fr");
    window.svc.basketSync.definePushProductsToCart(this.pushProductsToBasket);
    window.svc.basket.initialize(); // If you want the basket to be fetched on startup instead of being fetched the first time it is needed
    window.svc.hook.setHookCallback(this.hookCallback);
    setup = this;
  }

  /////////////// POS ///////////////

  // Call this method from your app on init with the id of the store or with null / undefined if no store is selected
  // And when the user choses a store
  loadStore(storeId) {
    window.svc.pos.load(storeId);
  }

  /////////////// LOGIN/LOGOUT ///////////////

  // Call this method from your app when the user logs in
  handleLogin(user) {
    // The second argument is `forbidProfiling` (docs/sdk.md, svc.user): a shopper who refused cookies is not
    // profiled (requests carry `profiling: false`). The maker's own example passes cookiesAccepted() as it is.
    window.svc.user.loadWithExternalId(user.id, !user.cookiesAccepted()).subscribe(() => {
      alert("User logged in on Svc!");
    });
  }

  // Call this method from your app when the user logs out
  handleLogout() {
    window.svc.user.reset();
  }

  /////////////// BASKET-SYNC ///////////////

  // Call this method at the point of your app where the user's cart is updated
  sendCartToSvc(cart) {
    window.svc.basketSync.retailerBasketChanged(
      // Your products aren't probably on the format {id, quantity}
      // so you need to map them to our ComparableProducts type
      cart.products.map((product) => {
        return { id: product.id, quantity: product.quantity };
      }),
    );
  }

  // Call this method at the point of your app where the user's cart is paid
  sendPaymentNotificationToSvc(cart) {
    // As the maker writes it, not awaited: a refusal (no cart to pay, called after the cart was emptied) is said in
    // the console by the SDK, never an unhandled rejection.
    window.svc.basketSync.handlePayment(cart.price);
  }

  pushProductsToBasket(products) {
    const deltas = [];
    products.forEach((product) => {
      if (product.quantity > 0) {
        // Add {quantity} number of products in the cart
        deltas.push({ id: product.id, quantity: product.quantity });
      } else {
        // Remove {quantity * -1} number of products from the cart
        deltas.push({ id: product.id, quantity: product.quantity });
      }
    });
    return updateShopCart(deltas);
  }

  /////////////// HOOKS CALLBACK ///////////////

  hookCallback(isLogged, isPosValid) {
    if (!isPosValid) {
      // Navigate to 'Choose my Point of Sale' page
      bringForward("[data-store-form]", "select[name='store_id']");
    }
    if (!isLogged) {
      // Navigate to login page
      bringForward("[data-login-form]", "button[type='submit']");
    }
    return isLogged && isPosValid;
    // this is just an example but if the current operation (adding the product to cart for instance) can continue, return true
    // If not (because of a page reload or a navigation), return false
  }
}
