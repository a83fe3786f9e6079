// Submits a form marked data-auto-submit (the silent prompt=none sign-in) as soon as the page is shown.
const submit = () => document.querySelector("form[data-auto-submit]")?.requestSubmit()
addEventListener("turbo:load", submit)
if (!window.Turbo) addEventListener("DOMContentLoaded", submit)
