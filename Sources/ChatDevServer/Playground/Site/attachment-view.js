// The built-in attachment types drawn as a chat app draws them; any other type goes to the
// payload cards. Links are checked (http(s) only) and every field is shown as text.

import { el, link, webURL, withQuery, formatBytes, formatDuration } from "./dom.js";
import { renderPayload } from "./payload-cards.js";

/** The thumbnail size asked of the server, as Stream's CDN resizes (`w`, `h`, `resize`). */
const thumbnail = { w: "480", h: "320", resize: "clip" };

const builtIn = {
  image: renderImage,
  video: renderVideo,
  audio: renderAudio,
  voiceRecording: renderVoiceRecording,
  file: renderFile,
  giphy: renderGiphy,
};

export function renderAttachment(attachment, message, view) {
  if (!attachment || typeof attachment !== "object") return null;
  // As the SDKs classify it: anything with og_scrape_url is a link preview, whatever its type.
  const type = attachment.og_scrape_url ? "linkPreview" : String(attachment.type ?? "");
  const render = type === "linkPreview" ? renderLinkPreview : builtIn[type];
  const body = render ? render(attachment) : renderPayload(attachment);
  const node = el("div", { className: `attachment attachment-${type.replace(/[^A-Za-z0-9_-]/g, "") || "unknown"}`,
    dataset: { type } }, body);
  if (Array.isArray(attachment.actions) && attachment.actions.length > 0) node.append(renderButtons(attachment.actions, message, view));
  return node;
}

function text(value) {
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
}

function title(attachment, fallbackURL) {
  const name = text(attachment.title) || text(attachment.fallback) || text(attachment.name);
  if (name) return name;
  try {
    return decodeURIComponent(new URL(fallbackURL).pathname.split("/").pop() || "file");
  } catch {
    return "file";
  }
}

function details(attachment) {
  return el("span", { className: "details" }, [formatBytes(attachment.file_size), text(attachment.mime_type)].filter(Boolean).join(" · "));
}

function renderImage(attachment) {
  const url = webURL(attachment.image_url) || webURL(attachment.asset_url) || webURL(attachment.thumb_url);
  const name = title(attachment, url);
  if (!url) return el("span", { className: "muted" }, `${name} (no image link)`);
  return el("a", { href: url, target: "_blank", rel: "noopener noreferrer", className: "thumbnail" },
    el("img", { src: withQuery(url, thumbnail), alt: name, loading: "lazy" }));
}

function renderVideo(attachment) {
  const url = webURL(attachment.asset_url);
  return [
    el("video", { src: url, poster: attachment.thumb_url, controls: true, preload: "metadata" }),
    el("div", { className: "caption" }, link(url, title(attachment, url)), " ", details(attachment)),
  ];
}

function renderAudio(attachment) {
  const url = webURL(attachment.asset_url);
  return [el("audio", { src: url, controls: true, preload: "metadata" }),
    el("div", { className: "caption" }, link(url, title(attachment, url)), " ", details(attachment))];
}

function renderVoiceRecording(attachment) {
  const url = webURL(attachment.asset_url);
  const samples = Array.isArray(attachment.waveform_data) ? attachment.waveform_data.slice(0, 100) : [];
  const waveform = el("div", { className: "waveform", "aria-hidden": "true" }, samples.map((sample) => {
    const bar = el("span");
    bar.style.height = `${Math.round(Math.min(Math.max(Number(sample) || 0, 0), 1) * 100)}%`;
    return bar;
  }));
  return [
    el("div", { className: "voice" }, el("span", { className: "icon" }, "🎙"), waveform,
      el("span", { className: "duration" }, formatDuration(attachment.duration))),
    el("audio", { src: url, controls: true, preload: "none" }),
  ];
}

function renderFile(attachment) {
  const url = webURL(attachment.asset_url);
  return el("div", { className: "file" }, el("span", { className: "icon" }, "📄"),
    el("div", {}, link(url, title(attachment, url), "file-name"), el("br"), details(attachment)));
}

function renderGiphy(attachment) {
  const url = webURL(attachment.giphy?.fixed_height?.url) || webURL(attachment.thumb_url) || webURL(attachment.image_url);
  return [el("img", { src: url, alt: text(attachment.title) || "GIF", className: "giphy" }),
    el("div", { className: "caption" }, link(attachment.title_link, text(attachment.title) || "GIF"), el("span", { className: "details" }, " GIPHY"))];
}

function renderLinkPreview(attachment) {
  const target = webURL(attachment.title_link) || webURL(attachment.og_scrape_url);
  const image = webURL(attachment.thumb_url) || webURL(attachment.image_url);
  return el("div", { className: "link-preview" },
    image && el("img", { src: image, alt: "", loading: "lazy" }),
    el("div", {},
      text(attachment.author_name) && el("div", { className: "details" }, text(attachment.author_name)),
      link(target, text(attachment.title) || target || "link", "preview-title"),
      text(attachment.text) && el("p", {}, text(attachment.text))));
}

/** A command's buttons; pressing one sends its name and value as the action's form data. */
function renderButtons(actions, message, view) {
  return el("div", { className: "buttons" }, actions.map((action) => el("button", {
    type: "button", className: text(action.style) === "primary" ? "primary" : "",
    dataset: { action: text(action.value) },
    onclick: (event) => {
      event.currentTarget.disabled = true;
      view.press(message, { [text(action.name)]: text(action.value) });
    },
  }, text(action.text) || text(action.value))));
}
