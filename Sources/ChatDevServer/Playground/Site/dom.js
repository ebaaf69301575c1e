// Building the page safely. Everything a message or a payload holds is untrusted: it only ever
// reaches the page as text (textContent), never as HTML, and a link only when it is http(s).

/**
 * An element: `el("p", {className: "note"}, "text", child)`. Props go through `setProp`,
 * children are nodes or strings (strings become text nodes), null and false are skipped.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) setProp(node, key, value);
  append(node, children);
  return node;
}

/** Appends children (nested arrays allowed); strings as text, never as markup. */
export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const urlProps = new Set(["href", "src", "poster"]);

function setProp(node, key, value) {
  if (value === null || value === undefined || value === false) return;
  if (key === "className") node.className = value;
  else if (key === "text") node.textContent = String(value);
  else if (key === "dataset") Object.assign(node.dataset, value);
  else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
  else if (urlProps.has(key)) {
    // The page's own paths (`/`, `/?user=…`), or absolute http(s) URLs; nothing else.
    const safe = typeof value === "string" && /^\/(?![\/\\])/.test(value) ? value : webURL(value);
    if (safe) node.setAttribute(key, safe);
  } else if (key === "innerHTML" || key === "outerHTML" || key === "srcdoc") {
    throw new Error(`el: ${key} is not allowed; build nodes instead`);
  } else node.setAttribute(key, value === true ? "" : String(value));
}

/** `value` as an absolute http(s) URL string, or null (javascript:, data:, relative, anything else). */
export function webURL(value) {
  if (typeof value !== "string" || value.trim() === "") return null;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** A link that opens in a new tab without handing it this page; plain text when `href` is not http(s). */
export function link(href, text, className) {
  const safe = webURL(href);
  if (!safe) return el("span", { className }, text);
  return el("a", { href: safe, target: "_blank", rel: "noopener noreferrer", className }, text);
}

/** `url` with query parameters added (a CDN image's resize parameters). */
export function withQuery(url, params) {
  const safe = webURL(url);
  if (!safe) return null;
  const result = new URL(safe);
  for (const [key, value] of Object.entries(params)) result.searchParams.set(key, value);
  return result.href;
}

/** 1536 → "1.5 KB". */
export function formatBytes(bytes) {
  const size = Number(bytes);
  if (!Number.isFinite(size) || size < 0) return "";
  if (size < 1024) return `${size} B`;
  const units = ["KB", "MB", "GB"];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** 1500 → "25:00"; 3725 → "1:02:05". */
export function formatDuration(seconds) {
  const total = Math.round(Number(seconds));
  if (!Number.isFinite(total) || total < 0) return "";
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** "14:05" for an RFC 3339 time. */
export function formatTime(text) {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** A user's name, or their id. */
export function displayName(user) {
  if (!user) return "someone";
  return typeof user.name === "string" && user.name !== "" ? user.name : user.id;
}
