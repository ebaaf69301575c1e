// The channels the user belongs to, with how many messages they have not read, and a field
// to join another one (the dev server's session route makes the user a member).

import { playgroundSession } from "./api.js";
import { el } from "./dom.js";

export class ChannelListView {
  constructor(api, { onOpen, onError }) {
    this.api = api;
    this.onOpen = onOpen;
    this.onError = onError;
    this.channels = new Map(); // cid → {name, unread}
    this.selected = null;
    this.list = el("ul", { className: "channel-list" });
    const field = el("input", { name: "channel", placeholder: "messaging:general", pattern: "[A-Za-z0-9_!\\-]+:[A-Za-z0-9_!\\-]+", required: true });
    this.node = el("nav", { className: "channels" }, el("h2", {}, "Channels"), this.list,
      el("form", { className: "join", onsubmit: async (event) => {
        event.preventDefault();
        try {
          await playgroundSession(api.user.id, "", field.value.trim());
          const cid = field.value.trim();
          field.value = "";
          await this.load();
          this.onOpen(cid);
        } catch (error) {
          this.onError(error.message);
        }
      } }, field, el("button", { type: "submit" }, "Join")));
  }

  async load() {
    const answer = await this.api.queryChannels();
    for (const state of answer.channels ?? []) {
      const cid = state.channel?.cid;
      if (!cid) continue;
      const own = (state.read ?? []).find((read) => read.user?.id === this.api.user.id);
      this.channels.set(cid, { name: state.channel.name, unread: own?.unread_messages ?? 0 });
    }
    this.draw();
  }

  select(cid) {
    this.selected = cid;
    const entry = this.channels.get(cid);
    if (entry) entry.unread = 0;
    else this.channels.set(cid, { unread: 0 });
    this.draw();
  }

  /** Counts what arrives in the channels not open; follows being added and removed. */
  handle(event) {
    const cid = event.cid ?? event.channel?.cid;
    if (!cid) return;
    if (event.type === "message.new" && cid !== this.selected && event.message?.user?.id !== this.api.user.id
      && !(event.message?.parent_id && !event.message?.show_in_channel)) {
      const entry = this.channels.get(cid) ?? { unread: 0 };
      entry.unread += 1;
      this.channels.set(cid, entry);
      this.draw();
    } else if (event.type === "notification.added_to_channel" && !this.channels.has(cid)) {
      this.channels.set(cid, { name: event.channel?.name, unread: 0 });
      this.draw();
    } else if (event.type === "notification.removed_from_channel" && event.member?.user_id === this.api.user.id) {
      this.channels.delete(cid);
      this.draw();
    }
  }

  draw() {
    this.list.replaceChildren(...[...this.channels.entries()].map(([cid, entry]) => el("li", {},
      el("button", { type: "button", className: cid === this.selected ? "channel-choice selected" : "channel-choice",
        dataset: { cid }, onclick: () => this.onOpen(cid) },
      el("span", {}, typeof entry.name === "string" && entry.name ? entry.name : cid),
      entry.unread > 0 && el("span", { className: "unread" }, String(entry.unread))))));
  }
}
