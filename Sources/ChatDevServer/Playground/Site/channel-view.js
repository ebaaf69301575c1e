// One channel, live: its messages (new, edited, deleted, undeleted, reacted to, voted on, AI
// replies as they are written), who is typing, who has read the latest message, the composer,
// and a thread beside it.
// It is also the `view` its messages act through: each action is one REST call, and the
// change comes back as an event, as to every other member.

import { AIIndicators } from "./ai-indicator-view.js";
import { ComposerView } from "./composer-view.js";
import { el, displayName } from "./dom.js";
import { MessageList } from "./message-list.js";
import { ThreadView } from "./thread-view.js";

export class ChannelView {
  constructor(api, cid, { onError }) {
    this.api = api;
    this.cid = cid;
    this.me = api.user.id;
    this.onError = onError;
    this.inThread = false;
    this.list = new MessageList(this);
    this.typing = new Map(); // user id → {user, parentId, timer}
    this.reads = new Map(); // user id → {user, last_read, last_read_message_id}
    this.users = new Map(); // user id → user, from the members (read events name only the id)
    this.thread = null;
    this.countedReplies = new Set();
    this.ai = new AIIndicators({
      stop: (message) => api.sendEvent(cid, { type: "ai_indicator.stop", message_id: message.id }),
      redraw: (id) => this.redraw(id),
      onError,
    });
    this.title = el("h2", {}, cid);
    this.memberLine = el("div", { className: "details members" });
    this.typingLine = el("div", { className: "typing", "aria-live": "polite" });
    this.readLine = el("div", { className: "read-state" });
    this.composer = new ComposerView(api, cid, { onSent: (message) => this.sent(message), onError });
    this.threadPane = el("aside", { className: "thread", hidden: true });
    this.node = el("section", { className: "channel", dataset: { cid } },
      el("div", { className: "channel-main" }, el("header", { className: "channel-header" }, this.title, this.memberLine),
        this.list.node, this.typingLine, this.readLine, this.composer.node),
      this.threadPane);
  }

  async load() {
    const state = await this.api.watchChannel(this.cid);
    const name = state.channel?.name;
    this.title.textContent = typeof name === "string" && name ? `${name} (${this.cid})` : this.cid;
    const members = Array.isArray(state.members) ? state.members : [];
    for (const member of members) if (member.user?.id) this.users.set(member.user.id, member.user);
    this.memberLine.textContent = `Members: ${members.map((member) => displayName(member.user ?? { id: member.user_id })).join(", ")}`;
    for (const read of Array.isArray(state.read) ? state.read : []) {
      if (read.user?.id) this.reads.set(read.user.id, read);
    }
    for (const message of state.messages ?? []) {
      // Edited before the page opened: written once, then changed (a poll, a location or an AI
      // reply changes by itself).
      const edited = message.updated_at !== message.created_at && !message.poll && !message.shared_location && message.type !== "deleted"
        && !message.ai_generated;
      this.list.put(message, { ownKnown: true, edited });
    }
    this.drawReads();
    this.list.scrollToEnd();
    this.markRead();
  }

  /** An event of this channel, from the connection. */
  handle(event) {
    const message = event.message;
    const threadHolds = this.thread?.holds(message);
    switch (event.type) {
      case "message.new":
        this.stopTyping(event.user?.id);
        if (message.parent_id && !message.show_in_channel) this.reply(message);
        else this.list.put(message);
        if (threadHolds) this.thread.list.put(message);
        if (message.user?.id !== this.me) this.markRead();
        this.drawReads();
        break;
      case "message.updated":
      case "message.undeleted":
      case "poll.vote_casted": case "poll.vote_changed": case "poll.vote_removed": case "poll.closed": case "poll.updated":
        this.update(message, { edited: event.type === "message.updated" && this.textChanged(message) });
        break;
      case "message.deleted":
        if (event.hard_delete) {
          this.list.remove(message.id);
          this.thread?.list.remove(message.id);
        } else this.update(message);
        break;
      case "reaction.new": case "reaction.updated": case "reaction.deleted":
        this.update(this.withOwnReaction(message, event));
        break;
      case "typing.start": case "typing.stop":
        if (event.user?.id && event.user.id !== this.me) this.setTyping(event.user, event.parent_id, event.type === "typing.start");
        break;
      case "ai_indicator.update": case "ai_indicator.clear":
        for (const id of this.ai.handle(event)) this.redraw(id);
        break;
      case "member.added":
        if (event.member?.user?.id) this.users.set(event.member.user.id, event.member.user);
        break;
      case "message.read":
        if (event.user?.id) {
          this.reads.set(event.user.id, { user: event.user, last_read: event.created_at, last_read_message_id: event.last_read_message_id });
        }
        this.drawReads();
        break;
      default:
        break;
    }
  }

  /** Whether an update changed what was written: an AI reply growing is no edit. */
  textChanged(message) {
    if (message.ai_generated) return false;
    const shown = this.list.get(message.id) ?? this.thread?.list.get(message.id);
    return Boolean(shown) && (shown.text !== message.text || JSON.stringify(shown.attachments) !== JSON.stringify(message.attachments));
  }

  update(message, options = {}) {
    if (!message) return;
    if (this.list.has(message.id)) this.list.put(message, options);
    if (this.thread?.holds(message)) this.thread.list.put(message, options);
  }

  /** Draws the message with id `id` again, where it is shown (its AI indicator changed). */
  redraw(id) {
    for (const list of [this.list, this.thread?.list]) {
      if (list?.has(id)) list.put(list.get(id), { ownKnown: true });
    }
  }

  /** The line under an AI reply: what it is doing, and its Stop button (message-view.js asks). */
  indicator(message) {
    return this.ai.render(message);
  }

  /** A thread reply not shown in the channel: counted on its first message, shown in its thread. */
  reply(message) {
    const parent = this.list.get(message.parent_id);
    if (!parent || this.countedReplies.has(message.id)) return;
    this.countedReplies.add(message.id);
    this.list.put({ ...parent, reply_count: (parent.reply_count ?? 0) + 1 });
  }

  /** An event's copy of a message, with the user's own reactions as the event changed them. */
  withOwnReaction(message, event) {
    const shown = this.list.get(message.id) ?? this.thread?.list.get(message.id);
    const own = new Set((shown?.own_reactions ?? []).map((reaction) => reaction.type));
    if ((event.reaction?.user_id ?? event.reaction?.user?.id) === this.me) {
      if (event.type === "reaction.deleted") own.delete(event.reaction.type);
      else own.add(event.reaction.type);
    }
    return { ...message, own_reactions: [...own].map((type) => ({ type, user_id: this.me })), latest_reactions:
      (message.latest_reactions ?? []).filter((reaction) => (reaction.user_id ?? reaction.user?.id) !== this.me || own.has(reaction.type)) };
  }

  setTyping(user, parentId, isTyping) {
    clearTimeout(this.typing.get(user.id)?.timer);
    if (isTyping) {
      // A typing.stop can be lost; typing ends by itself as the SDKs assume.
      this.typing.set(user.id, { user, parentId, timer: setTimeout(() => this.stopTyping(user.id), 7000) });
    } else this.typing.delete(user.id);
    this.drawTyping();
  }

  stopTyping(userId) {
    if (!userId || !this.typing.has(userId)) return;
    clearTimeout(this.typing.get(userId).timer);
    this.typing.delete(userId);
    this.drawTyping();
  }

  drawTyping() {
    const describe = (entries) => (entries.length === 0 ? ""
      : `${entries.map((entry) => displayName(entry.user)).join(", ")} ${entries.length === 1 ? "is" : "are"} typing…`);
    const all = [...this.typing.values()];
    this.typingLine.textContent = describe(all.filter((entry) => !entry.parentId));
    if (this.thread) this.thread.typingLine.textContent = describe(all.filter((entry) => entry.parentId === this.thread.parentId));
  }

  /** Who else has read the newest message. */
  drawReads() {
    const newest = this.list.last();
    const readers = newest ? [...this.reads.values()].filter((read) => read.user.id !== this.me && read.user.id !== newest.user?.id
      && (read.last_read_message_id === newest.id || Date.parse(read.last_read) >= Date.parse(newest.created_at))) : [];
    const names = readers.map((read) => displayName(this.users.get(read.user.id) ?? read.user)).sort();
    this.readLine.textContent = names.length > 0 ? `Seen by ${names.join(", ")}` : "";
  }

  markRead() {
    clearTimeout(this.readTimer);
    this.readTimer = setTimeout(() => this.api.markRead(this.cid).catch(() => {}), 300);
  }

  /** What the composer sent: shown at once (an ephemeral answer only ever here). */
  sent(message) {
    if (!message) return;
    if (message.parent_id && !message.show_in_channel) return;
    this.list.put(message, { ownKnown: true });
    this.list.scrollToEnd();
    this.drawReads();
  }

  async openThread(message) {
    this.thread = new ThreadView(this, message);
    this.threadPane.replaceChildren(this.thread.node);
    this.threadPane.hidden = false;
    await this.thread.load().catch((error) => this.onError(error.message));
  }

  closeThread() {
    this.thread = null;
    this.threadPane.hidden = true;
    this.threadPane.replaceChildren();
  }

  async run(call) {
    try {
      return await call();
    } catch (error) {
      this.onError(error.message);
      return null;
    }
  }

  // The actions a message offers (message-view.js calls them).
  async toggleReaction(message, type, isOwn) {
    const answer = await this.run(() => (isOwn ? this.api.unreact(message.id, type) : this.api.react(message.id, type)));
    if (answer?.message) this.update(answer.message, { ownKnown: true });
  }

  edit(message) {
    this.composer.edit(message);
  }

  async remove(message) {
    const answer = await this.run(() => this.api.deleteMessage(message.id));
    if (answer?.message) this.update(answer.message);
  }

  async press(message, formData) {
    const answer = await this.run(() => this.api.runAction(message.id, formData));
    if (answer === null) return;
    if (answer.message) this.list.put(answer.message, { ownKnown: true });
    else this.list.remove(message.id);
  }

  vote(message, option) {
    return this.run(() => this.api.castVote(message.id, message.poll.id, option.id));
  }

  removeVote(message, vote) {
    return this.run(() => this.api.removeVote(message.id, message.poll.id, vote.id));
  }

  closePoll(message) {
    return this.run(() => this.api.closePoll(message.poll.id));
  }
}
