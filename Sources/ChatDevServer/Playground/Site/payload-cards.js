// Custom payloads: an attachment of a type the page has no renderer for is drawn as a card of
// its fields. A bot author registers a renderer for their own type with the hook below; the
// workout bot's two types (workout-cards.js) are drawn through the same hook.
//
//   import { registerPayloadRenderer } from "/playground/payload-cards.js";
//   registerPayloadRenderer("product", (attachment, { el, fieldsCard }) =>
//     el("div", {}, el("strong", {}, attachment.name), ` ${attachment.price} €`),
//     { template: { type: "product", name: "Socks", price: 4 } });
//
// A renderer gets the attachment as it came (untrusted: build nodes with `el`, which only
// ever sets text, and links with `link`, which only keeps http(s) ones) and returns a node;
// `template` is what the composer's payload editor starts from. A renderer that throws or
// returns nothing falls back to the card of fields.

import { el, link, webURL, formatBytes, formatDuration } from "./dom.js";

const renderers = new Map();
const templates = new Map();

/** What a renderer is handed besides the attachment: safe builders. */
export const helpers = { el, link, webURL, formatBytes, formatDuration, fieldsCard };

export function registerPayloadRenderer(type, render, { template } = {}) {
  if (typeof type !== "string" || typeof render !== "function") throw new TypeError("registerPayloadRenderer(type, render)");
  renderers.set(type, render);
  if (template) templates.set(type, template);
}

/** The payload types the composer offers, each with the JSON it starts from. */
export function payloadTemplates() {
  return [...templates.entries()].map(([type, template]) => ({ type, template }));
}

export function renderPayload(attachment) {
  const render = renderers.get(attachment.type);
  if (render) {
    try {
      const node = render(attachment, helpers);
      if (node instanceof Node) return el("div", { className: "payload-card", dataset: { payload: attachment.type } }, node);
    } catch (error) {
      console.warn(`the renderer of ${attachment.type} failed; showing its fields`, error);
    }
  }
  return fieldsCard(attachment);
}

/** Every field of the attachment, named, as text (nested values as JSON text); null for an attachment of buttons only. */
export function fieldsCard(attachment, heading) {
  const list = el("dl");
  for (const [key, value] of Object.entries(attachment)) {
    if (key === "type" || key === "actions") continue;
    const shown = typeof value === "string" ? (webURL(value) && /^https?:/i.test(value) ? link(value, value) : value)
      : JSON.stringify(value);
    list.append(el("dt", {}, key), el("dd", {}, shown));
  }
  // Nothing but its buttons (a command's answer): the buttons are drawn, no empty card.
  if (!list.firstChild && Array.isArray(attachment.actions)) return null;
  return el("div", { className: "payload-card fields", dataset: { payload: String(attachment.type ?? "") } },
    el("div", { className: "payload-type" }, heading ?? String(attachment.type ?? "payload")), list);
}

// For trying a renderer out from the browser's console.
window.chatBotKitPlayground = Object.freeze({ registerPayloadRenderer });
