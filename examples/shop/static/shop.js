// Demo Market: the pickers submit themselves when JavaScript runs (their OK buttons are for no-JS).
document.documentElement.classList.add("js");
document.addEventListener("change", (event) => {
  const select = event.target;
  if (select instanceof HTMLSelectElement && select.hasAttribute("data-autosubmit") && select.form) {
    select.form.requestSubmit();
  }
});
