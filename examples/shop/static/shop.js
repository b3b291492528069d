// Demo Market: the pickers submit themselves when JavaScript runs (their OK buttons are for no-JS), the
// account menu closes on Escape or a click elsewhere, and the navigation rows show the link the keyboard reaches.
// Loaded with `defer`: the page's `<head>` adds the `js` class
// itself, before the first paint (templates/base.html).

/** @param {EventTarget | null} target @returns {HTMLSelectElement | null} a picker that submits itself */
function picker(target) {
  return target instanceof HTMLSelectElement && target.hasAttribute("data-autosubmit") && target.form ? target : null;
}

// A closed select steps option by option under the arrow keys (and type-ahead), each step a `change`: submitting
// there reloaded the page at the first arrow. A keyboard's choice waits for Enter, and shows the picker's OK
// button for Tab to reach; a pointer's (or the open list's) submits at once.
let keyed = null;
document.addEventListener("keydown", (event) => {
  const select = picker(event.target);
  if (!select) return;
  if (event.key === "Enter") {
    event.preventDefault();
    select.form.requestSubmit();
  } else if (!["Tab", "Escape", " "].includes(event.key) && !event.altKey) {
    keyed = select;
  }
});
document.addEventListener("pointerdown", () => { keyed = null; });
document.addEventListener("change", (event) => {
  const select = picker(event.target);
  if (!select) return;
  if (keyed === select) {
    keyed = null;
    select.form.classList.add("picker--changed");
    return;
  }
  select.form.requestSubmit();
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
