// A shared location: where, until when it is live, and a link to a map.

import { el, link, formatTime } from "./dom.js";

export function renderLocation(location) {
  const latitude = Number(location.latitude);
  const longitude = Number(location.longitude);
  const where = Number.isFinite(latitude) && Number.isFinite(longitude) ? `${latitude.toFixed(5)}, ${longitude.toFixed(5)}` : "unknown";
  const endAt = location.end_at ? new Date(location.end_at) : null;
  const live = endAt && endAt.getTime() > Date.now();
  const state = !endAt ? "shared once" : live ? `live until ${formatTime(location.end_at)}` : "stopped sharing";
  const map = Number.isFinite(latitude) && Number.isFinite(longitude)
    ? `https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=15/${latitude}/${longitude}` : null;
  return el("div", { className: live ? "location live" : "location", dataset: { live: live ? "true" : "false" } },
    el("span", { className: "big-icon" }, "📍"),
    el("div", {}, el("strong", { className: "where" }, where), el("div", { className: "details" }, state), map && link(map, "Open map")));
}
