// Demo Market: the pickers submit themselves when JavaScript runs (their OK buttons are for no-JS), the
// account menu closes on Escape or a click elsewhere, and the navigation rows show the link the keyboard reaches.
// Loaded with `defer`: the page's `<head>` adds the `js` class
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

// The navigation rows scroll sideways on a phone: a link the keyboard reaches shows whole (Chromium scrolls a focused
// element only when none of it shows). Not the pointer's focus: the row must not move under a click.
document.addEventListener("focusin", (event) => {
  const link = event.target;
  if (link instanceof Element && link.matches(".site-nav__list :focus-visible, .section-nav__list :focus-visible")) {
    link.scrollIntoView({ block: "nearest", inline: "nearest" });
  }
});
