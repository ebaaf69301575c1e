// Writing a message: text (slash commands go as typed; the server runs them), files uploaded
// as soon as they are chosen with a progress bar each, and custom payloads written as JSON.
// Typing sends typing.start and, after a pause, typing.stop. Editing a message reuses it.
// A message the server refuses (answered as type `error`: a before-send hook, such as the
// moderator's, or a frozen channel) was posted to nobody: its reason shows above the composer,
// the text stays to send again, and the files go (none of them were taken).

import { el, formatBytes } from "./dom.js";
import { payloadTemplates } from "./payload-cards.js";

export class ComposerView {
  constructor(api, cid, { parentId = null, onSent, onError }) {
    this.api = api;
    this.cid = cid;
    this.parentId = parentId;
    this.onSent = onSent;
    this.onError = onError;
    this.pending = []; // {chip, attachment, uploading}
    this.editing = null;
    this.lastTypingAt = 0;
    this.typingTimer = null;

    this.text = el("textarea", { name: "text", rows: "2", placeholder: parentId ? "Reply in the thread" : "Message, or /command",
      oninput: () => this.typed(), onkeydown: (event) => {
        if (event.key === "Enter" && !event.shiftKey) {
          event.preventDefault();
          this.send();
        }
      } });
    this.files = el("input", { type: "file", multiple: true, className: "file-input", onchange: () => this.chooseFiles() });
    this.attachmentsNode = el("div", { className: "pending" });
    this.payloadEditor = this.makePayloadEditor();
    this.refusal = el("p", { className: "composer-refusal error", role: "alert", hidden: true });
    this.sendButton = el("button", { type: "submit", className: "primary send" }, "Send");
    this.cancelButton = el("button", { type: "button", className: "cancel-edit", hidden: true, onclick: () => this.stopEditing() }, "Cancel");
    this.node = el("form", { className: "composer", onsubmit: (event) => {
      event.preventDefault();
      this.send();
    } },
    this.refusal, this.attachmentsNode, this.payloadEditor,
    el("div", { className: "composer-row" },
      el("label", { className: "attach button", title: "Attach files" }, "📎", this.files),
      el("button", { type: "button", className: "payload-toggle", title: "Attach a custom payload",
        onclick: () => { this.payloadEditor.hidden = !this.payloadEditor.hidden; } }, "{ }"),
      this.text, this.cancelButton, this.sendButton));
  }

  makePayloadEditor() {
    const templates = payloadTemplates();
    const json = el("textarea", { className: "payload-json", rows: "4", spellcheck: "false" });
    const choose = el("select", { className: "payload-type-select", onchange: () => {
      const chosen = templates.find((entry) => entry.type === choose.value);
      json.value = JSON.stringify(chosen ? chosen.template : { type: "my-type", field: "value" }, null, 2);
    } }, templates.map(({ type }) => el("option", { value: type }, type)), el("option", { value: "" }, "another type…"));
    json.value = JSON.stringify(templates[0]?.template ?? { type: "my-type" }, null, 2);
    const problem = el("span", { className: "error" });
    const add = el("button", { type: "button", className: "add-payload", onclick: () => {
      try {
        const payload = JSON.parse(json.value);
        if (!payload || typeof payload !== "object" || Array.isArray(payload) || typeof payload.type !== "string" || payload.type === "") {
          throw new Error("a payload is a JSON object with a \"type\"");
        }
        problem.textContent = "";
        this.addReady(payload, `${payload.type} payload`);
        editor.hidden = true;
      } catch (error) {
        problem.textContent = error.message;
      }
    } }, "Add payload");
    const editor = el("div", { className: "payload-editor", hidden: true }, el("label", {}, "Type ", choose), json, add, problem);
    return editor;
  }

  typed() {
    const now = Date.now();
    const event = this.parentId ? { parent_id: this.parentId } : {};
    if (now - this.lastTypingAt > 2000) {
      this.lastTypingAt = now;
      this.api.sendEvent(this.cid, { type: "typing.start", ...event }).catch(() => {});
    }
    clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => this.stopTyping(), 3000);
  }

  stopTyping() {
    clearTimeout(this.typingTimer);
    if (this.lastTypingAt === 0) return;
    this.lastTypingAt = 0;
    this.api.sendEvent(this.cid, { type: "typing.stop", ...(this.parentId ? { parent_id: this.parentId } : {}) }).catch(() => {});
  }

  addReady(attachment, label) {
    const entry = { attachment, uploading: false };
    entry.chip = el("div", { className: "chip done" }, el("span", {}, label),
      el("button", { type: "button", className: "link-button", onclick: () => this.drop(entry) }, "✕"));
    this.pending.push(entry);
    this.attachmentsNode.append(entry.chip);
  }

  chooseFiles() {
    for (const file of this.files.files) this.upload(file);
    this.files.value = "";
  }

  upload(file) {
    const progress = el("progress", { className: "upload-progress", max: String(file.size || 1), value: "0", dataset: { updates: "0" } });
    const status = el("span", { className: "details" }, formatBytes(file.size));
    const entry = { attachment: null, uploading: true };
    entry.chip = el("div", { className: "chip uploading", dataset: { file: file.name } }, el("span", { className: "file-name" }, file.name),
      progress, status, el("button", { type: "button", className: "link-button", onclick: () => this.drop(entry) }, "✕"));
    this.pending.push(entry);
    this.attachmentsNode.append(entry.chip);
    this.refreshSendButton();
    const follow = (sent, total) => {
      progress.max = total;
      progress.value = sent;
      progress.dataset.updates = String(Number(progress.dataset.updates) + 1);
    };
    const asImage = file.type.startsWith("image/");
    // An "image" whose bytes are not one is refused by /image; as a chat app does, it goes
    // again as a file (and the channel's moderation judges it as one).
    const uploaded = asImage
      ? this.api.upload(this.cid, file, "image", follow).then((answer) => ({ answer, asImage: true }), (error) => {
        if (error.status !== 400) throw error;
        return this.api.upload(this.cid, file, "file", follow).then((answer) => ({ answer, asImage: false }));
      })
      : this.api.upload(this.cid, file, "file", follow).then((answer) => ({ answer, asImage: false }));
    uploaded.then(({ answer, asImage: image }) => {
      entry.attachment = attachmentFor(file, answer, image);
      entry.chip.className = "chip done";
      progress.value = progress.max;
      status.textContent = `${formatBytes(file.size)} uploaded`;
    }).catch((error) => {
      entry.chip.className = "chip failed";
      status.textContent = error.message;
    }).finally(() => {
      entry.uploading = false;
      this.refreshSendButton();
    });
  }

  drop(entry) {
    this.pending = this.pending.filter((other) => other !== entry);
    entry.chip.remove();
    this.refreshSendButton();
  }

  refreshSendButton() {
    this.sendButton.disabled = this.pending.some((entry) => entry.uploading);
  }

  edit(message) {
    this.editing = message;
    this.text.value = message.text ?? "";
    this.sendButton.textContent = "Save";
    this.cancelButton.hidden = false;
    this.text.focus();
  }

  stopEditing() {
    this.editing = null;
    this.text.value = "";
    this.sendButton.textContent = "Send";
    this.cancelButton.hidden = true;
  }

  /** Shows why the server refused the last message (`text`), or nothing (null). */
  showRefusal(text) {
    this.refusal.replaceChildren(...(text === null ? [] : [el("strong", {}, "Not sent:"), ` ${text}`]));
    this.refusal.hidden = text === null;
  }

  async send() {
    if (this.sendButton.disabled) return;
    const text = this.text.value.trim();
    const attachments = this.pending.map((entry) => entry.attachment).filter(Boolean);
    if (!text && attachments.length === 0 && !this.editing) return;
    this.stopTyping();
    this.showRefusal(null);
    try {
      let answer;
      if (this.editing) {
        answer = await this.api.updateMessage({ id: this.editing.id, text, attachments: this.editing.attachments ?? [] });
        this.stopEditing();
      } else {
        const message = { text, attachments };
        if (this.parentId) message.parent_id = this.parentId;
        answer = await this.api.sendMessage(this.cid, message);
        for (const entry of this.pending) entry.chip.remove();
        this.pending = [];
        if (answer.message?.type === "error") {
          this.showRefusal(answer.message.text || "the server refused the message");
          return;
        }
        this.text.value = "";
      }
      this.onSent(answer.message);
    } catch (error) {
      this.onError(error.message);
    }
  }
}

/** The attachment an uploaded file becomes, as the JS SDK builds it. */
function attachmentFor(file, answer, isImage) {
  const common = { title: file.name, file_size: file.size, mime_type: file.type || "application/octet-stream" };
  if (isImage) {
    return { type: "image", image_url: answer.file, thumb_url: answer.thumb_url ?? answer.file, fallback: file.name, ...common };
  }
  const type = file.type.startsWith("video/") ? "video" : file.type.startsWith("audio/") ? "audio" : "file";
  return { type, asset_url: answer.file, ...(answer.thumb_url ? { thumb_url: answer.thumb_url } : {}), ...common };
}
