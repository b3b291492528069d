// Demo Market: the pickers submit themselves when JavaScript runs (their OK buttons are for no-JS), and the
// account menu closes on Escape or a click elsewhere. Loaded with `defer`: the page's `<head>` adds the `js` class
// itself, before the first paint (templates/base.html).
document.addEventListener("change", (event) => {
  const select = event.target;
  if (select instanceof HTMLSelectElement && select.hasAttribute("data-autosubmit") && select.form) {
    select.form.requestSubmit();
  }
});

document.addEventListener("keydown", (event) => {
  const menu = document.querySelector("[data-account-menu][open]");
  if (event.key === "Escape" && menu) {
    menu.removeAttribute("open");
    menu.querySelector("summary")?.focus();
  }
});
document.addEventListener("click", (event) => {
  const menu = document.querySelector("[data-account-menu][open]");
  if (menu && event.target instanceof Node && !menu.contains(event.target)) menu.removeAttribute("open");
});
