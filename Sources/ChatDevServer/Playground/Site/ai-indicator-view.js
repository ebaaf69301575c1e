// What an AI reply is doing, on Stream's AI protocol, shown under its text as Stream's UI kits
// show it: `ai_indicator.update` events say thinking, generating, checking sources or failed
// (`ai_state`, `message_id`), `ai_indicator.clear` ends it. While the reply is being written it
// has a Stop button, which sends `ai_indicator.stop` for that reply as a channel event (the way
// the UI kits send it); the bot keeps the text so far, marks the reply `ai_stopped` and clears
// the indicator. The text itself grows through `message.updated`, which redraws the message.
//
// Only the events say what a reply is doing (as in the UI kits): a page opened in the middle of
// a reply shows it from the next event on.

import { el } from "./dom.js";

const labels = {
  AI_STATE_THINKING: "Thinking…",
  AI_STATE_GENERATING: "Generating…",
  AI_STATE_EXTERNAL_SOURCES: "Checking sources…",
};

export class AIIndicators {
  /**
   * `stop(message)` sends the stop for a reply (a promise); `redraw(id)` draws a message again;
   * `onError(text)` says what went wrong.
   */
  constructor({ stop, redraw, onError }) {
    this.stop = stop;
    this.redraw = redraw;
    this.onError = onError;
    this.states = new Map(); // message id → ai_state
    this.stopping = new Set(); // message ids whose Stop was pressed
  }

  /** Takes an `ai_indicator.*` event; returns the ids of the messages to draw again. */
  handle(event) {
    const id = typeof event.message_id === "string" && event.message_id ? event.message_id : null;
    switch (event.type) {
      case "ai_indicator.update":
        if (!id || typeof event.ai_state !== "string") return [];
        if (event.ai_state === "AI_STATE_IDLE") return this.clear([id]);
        this.states.set(id, event.ai_state);
        return [id];
      case "ai_indicator.clear":
        // One without a message id ends every indicator of the channel, as in the UI kits.
        return this.clear(id ? [id] : [...this.states.keys()]);
      default:
        return [];
    }
  }

  clear(ids) {
    for (const id of ids) {
      this.states.delete(id);
      this.stopping.delete(id);
    }
    return ids;
  }

  /** The indicator line of `message`, or null when it has none. */
  render(message) {
    const state = this.states.get(message.id);
    if (state === "AI_STATE_ERROR") {
      const why = typeof message.ai_error?.message === "string" && message.ai_error.message ? message.ai_error.message : "the answer failed";
      return el("div", { className: "ai-indicator failed", role: "status", dataset: { state } },
        el("span", { className: "ai-state" }, `Error: ${why}`));
    }
    if (labels[state]) {
      const stopping = this.stopping.has(message.id);
      return el("div", { className: "ai-indicator", role: "status", dataset: { state } },
        el("span", { className: "ai-dots", "aria-hidden": "true" }), el("span", { className: "ai-state" }, labels[state]),
        el("button", { type: "button", className: "stop-generating", disabled: stopping, title: "Stop writing this answer",
          onclick: () => this.press(message) }, stopping ? "Stopping…" : "Stop"));
    }
    if (message.ai_stopped === true) return el("div", { className: "ai-indicator stopped", dataset: { state: "stopped" } }, "Stopped");
    return null;
  }

  async press(message) {
    this.stopping.add(message.id);
    this.redraw(message.id);
    try {
      await this.stop(message);
    } catch (error) {
      // Not sent: it can be pressed again.
      this.stopping.delete(message.id);
      this.redraw(message.id);
      this.onError(`The stop was not sent: ${error.message}`);
    }
  }
}
