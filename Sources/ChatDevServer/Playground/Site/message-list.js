// The messages of a channel or a thread, in the order they were written, each drawn by
// message-view.js and drawn again, in place, whenever a newer copy of it arrives.

import { el } from "./dom.js";
import { renderMessage } from "./message-view.js";

export class MessageList {
  constructor(view, className = "messages") {
    this.view = view;
    this.messages = new Map();
    this.nodes = new Map();
    this.node = el("div", { className, role: "log", "aria-live": "polite" });
  }

  has(id) {
    return this.messages.has(id);
  }

  get(id) {
    return this.messages.get(id);
  }

  /** The newest message shown. */
  last() {
    const node = this.node.lastElementChild;
    return node ? this.messages.get(node.dataset.id) : undefined;
  }

  /**
   * Shows `message`, replacing an older copy. Copies from events are rendered for nobody in
   * particular, so the user's own reactions are kept from the copy before unless `ownKnown`.
   */
  put(message, { edited = false, ownKnown = false } = {}) {
    // Someone reading the latest messages keeps seeing them as new ones come; someone scrolled
    // up to older ones stays where they are.
    const atEnd = this.node.scrollHeight - this.node.scrollTop - this.node.clientHeight < 120;
    const previous = this.messages.get(message.id);
    const merged = { ...message, edited: Boolean(previous?.edited || edited || message.edited) };
    if (previous && !ownKnown) merged.own_reactions = previous.own_reactions;
    this.messages.set(message.id, merged);
    const node = renderMessage(merged, this.view);
    const old = this.nodes.get(message.id);
    this.nodes.set(message.id, node);
    if (old) {
      old.replaceWith(node);
    } else {
      const later = [...this.node.children].find((other) => {
        const shown = this.messages.get(other.dataset.id);
        return shown && Date.parse(shown.created_at) > Date.parse(merged.created_at);
      });
      this.node.insertBefore(node, later ?? null);
    }
    if (atEnd) this.scrollToEnd();
    return merged;
  }

  remove(id) {
    this.messages.delete(id);
    this.nodes.get(id)?.remove();
    this.nodes.delete(id);
  }

  /** Draws every message again (after the reads or the user's votes changed). */
  redraw() {
    for (const message of this.messages.values()) this.put(message, { ownKnown: true });
  }

  scrollToEnd() {
    this.node.scrollTop = this.node.scrollHeight;
  }
}
