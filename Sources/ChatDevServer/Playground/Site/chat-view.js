// The page once a user is chosen: who they are, their channels, and the open channel. It owns
// the event connection and hands each event to the channel it belongs to.

import { ChannelListView } from "./channel-list-view.js";
import { ChannelView } from "./channel-view.js";
import { EventConnection } from "./connection.js";
import { el, displayName } from "./dom.js";

export class ChatView {
  constructor(root, api) {
    this.api = api;
    this.current = null;
    this.toast = el("div", { className: "toast", role: "alert", hidden: true });
    this.status = el("span", { className: "status" }, "connecting…");
    this.channels = new ChannelListView(api, { onOpen: (cid) => this.open(cid), onError: (text) => this.showError(text) });
    this.main = el("div", { className: "main" }, el("p", { className: "muted empty" }, "No channel yet: join one on the left."));
    const switchUser = el("a", { href: "/", className: "switch-user" }, "Switch user");
    root.replaceChildren(el("div", { className: "layout" },
      el("aside", { className: "sidebar" },
        el("div", { className: "me" }, el("strong", { className: "me-name" }, displayName(api.user)), " ",
          el("span", { className: "details" }, `(${api.user.id})`), el("br"), this.status, " · ", switchUser),
        this.channels.node),
      this.main, this.toast));
  }

  async start(channel) {
    this.connection = new EventConnection(this.api, {
      onEvent: (event) => this.handle(event),
      onReconnect: () => this.rewatch(),
      onStatus: (status) => { this.status.textContent = status; this.status.dataset.status = status; },
    });
    await this.connection.open();
    await this.channels.load();
    const first = channel || this.channels.channels.keys().next().value;
    if (first) await this.open(first);
    performance.mark("playground-ready");
    document.body.dataset.ready = "true";
  }

  handle(event) {
    if (this.current && event.cid === this.current.cid) this.current.handle(event);
    this.channels.handle(event);
  }

  /** After a reconnect the new connection watches nothing: watch again and reload. */
  async rewatch() {
    await this.channels.load();
    if (this.current) await this.open(this.current.cid);
  }

  async open(cid) {
    const view = new ChannelView(this.api, cid, { onError: (text) => this.showError(text) });
    this.current = view;
    this.channels.select(cid);
    const query = new URLSearchParams({ user: this.api.user.id, channel: cid });
    history.replaceState(null, "", `/?${query}`);
    try {
      await view.load();
      this.main.replaceChildren(view.node);
      // Only a list on the page has a height to scroll: the newest messages show first.
      view.list.scrollToEnd();
    } catch (error) {
      this.showError(`Could not open ${cid}: ${error.message}`);
    }
  }

  showError(text) {
    this.toast.textContent = text;
    this.toast.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { this.toast.hidden = true; }, 8000);
  }
}
