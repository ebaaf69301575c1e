// A thread beside the channel: its first message and the replies, live, with a composer that
// replies in it. Its actions are the channel's (`channel` does the REST calls).

import { ComposerView } from "./composer-view.js";
import { el } from "./dom.js";
import { MessageList } from "./message-list.js";

export class ThreadView {
  constructor(channel, parent) {
    this.channel = channel;
    this.parentId = parent.id;
    this.me = channel.me;
    this.inThread = true;
    this.list = new MessageList(this, "messages thread-messages");
    this.typingLine = el("div", { className: "typing" });
    this.composer = new ComposerView(channel.api, channel.cid, {
      parentId: parent.id, onSent: (message) => message && this.list.put(message, { ownKnown: true }),
      onError: (text) => channel.onError(text),
    });
    this.node = el("div", { className: "thread-inner", dataset: { parent: parent.id } },
      el("header", { className: "thread-header" }, el("h3", {}, "Thread"),
        el("button", { type: "button", className: "link-button close-thread", onclick: () => channel.closeThread() }, "Close")),
      this.list.node, this.typingLine, this.composer.node);
    this.list.put(parent, { ownKnown: true });
  }

  async load() {
    const answer = await this.channel.api.replies(this.parentId);
    for (const reply of answer.messages ?? []) this.list.put(reply, { ownKnown: true });
    this.list.scrollToEnd();
  }

  /** Whether the message belongs here: the thread's first message or one of its replies. */
  holds(message) {
    return message && (message.id === this.parentId || message.parent_id === this.parentId);
  }

  // The actions a message offers, done by the channel.
  toggleReaction(message, type, isOwn) { this.channel.toggleReaction(message, type, isOwn); }
  edit(message) { this.composer.edit(message); }
  remove(message) { this.channel.remove(message); }
  press(message, formData) { this.channel.press(message, formData); }
  vote(message, option) { this.channel.vote(message, option); }
  removeVote(message, vote) { this.channel.removeVote(message, vote); }
  closePoll(message) { this.channel.closePoll(message); }
  indicator(message) { return this.channel.indicator(message); }
  openThread() {}
}
