// The one confirmation dialog of the console: it names the action and its consequence, asks
// for a reason where the API records one, runs the action, and stays open with the service's
// answer when the action is refused (problem details), so nothing is done by one click.

import { byId, showMessage } from "./dom.js";

export class ConfirmDialog {
  constructor() {
    this.dialog = byId("confirm");
    this.form = byId("confirm-form");
    this.title = byId("confirm-title");
    this.text = byId("confirm-text");
    this.reasonBox = byId("confirm-reason-box");
    this.reasonLabel = byId("confirm-reason-label");
    this.reason = byId("confirm-reason");
    this.choiceBox = byId("confirm-choice-box");
    this.choiceLabel = byId("confirm-choice-label");
    this.choice = byId("confirm-choice");
    this.error = byId("confirm-error");
    this.yes = byId("confirm-yes");
    this.no = byId("confirm-no");
    this.pending = null;
    this.form.addEventListener("submit", (event) => this.onSubmit(event));
    this.no.addEventListener("click", () => this.finish(false));
    this.dialog.addEventListener("cancel", (event) => {
      event.preventDefault(); // Escape: the same as "Go back"
      this.finish(false);
    });
  }

  // Resolves true once `run(reason, choice)` succeeded, false when the supervisor went back.
  // `choice`: {label, options} for a value picked among options (a card's position).
  ask({
    title, text, confirmLabel, reason = null, choice = null, danger = false, returnFocus = null,
    run,
  }) {
    if (this.pending !== null) this.finish(false);
    this.title.textContent = title;
    this.text.textContent = text;
    this.yes.textContent = confirmLabel;
    this.yes.classList.toggle("button--danger", danger);
    this.yes.disabled = false;
    this.choiceBox.hidden = choice === null;
    this.choice.replaceChildren(
      ...(choice?.options ?? []).map((value) => {
        const option = document.createElement("option");
        option.value = value;
        option.textContent = value;
        return option;
      }),
    );
    this.choiceLabel.textContent = choice?.label ?? "";
    this.reasonBox.hidden = reason === null;
    this.reason.value = "";
    this.reason.required = reason === "required";
    this.reasonLabel.textContent = reason === "required"
      ? "Reason (recorded with the action)"
      : "Reason (optional)";
    showMessage(this.error, "");
    this.reason.removeAttribute("aria-invalid");
    return new Promise((resolve) => {
      this.pending = { resolve, run, reasonRule: reason, returnFocus };
      this.dialog.showModal();
      (reason === null ? this.no : this.reason).focus();
    });
  }

  async onSubmit(event) {
    event.preventDefault();
    const pending = this.pending;
    if (pending === null) return;
    const reason = this.reason.value.trim();
    if (pending.reasonRule === "required" && reason === "") {
      showMessage(this.error, "Give a reason: it is recorded with the action.");
      this.reason.setAttribute("aria-invalid", "true");
      this.reason.focus();
      return;
    }
    this.yes.disabled = true;
    this.dialog.setAttribute("aria-busy", "true");
    try {
      await pending.run(reason, this.choice.value);
    } catch (error) {
      showMessage(this.error, `Refused: ${error.message}`);
      this.yes.disabled = false;
      this.yes.focus();
      return;
    } finally {
      this.dialog.removeAttribute("aria-busy");
    }
    this.finish(true);
  }

  finish(done) {
    const pending = this.pending;
    this.pending = null;
    if (this.dialog.open) this.dialog.close();
    if (pending === null) return;
    const back = pending.returnFocus;
    if (back && document.contains(back) && !back.disabled) back.focus();
    pending.resolve(done);
  }
}
