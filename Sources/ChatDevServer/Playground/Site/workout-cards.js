// The workout bot's payloads, drawn through the public hook as a bot author's would be:
// `workout` (what a member posts) and `workout-summary` (the bot's answer).

import { registerPayloadRenderer } from "./payload-cards.js";

const icons = { run: "🏃", ride: "🚴", swim: "🏊", walk: "🚶" };

function kilometres(meters) {
  const value = Number(meters);
  return Number.isFinite(value) ? `${(value / 1000).toFixed(1)} km` : null;
}

registerPayloadRenderer("workout", (workout, { el, formatDuration }) => {
  const kind = typeof workout["workout-type"] === "string" ? workout["workout-type"] : "workout";
  const parts = [kilometres(workout["workout-distance-meters"]), formatDuration(workout["workout-duration-seconds"]),
    Number.isFinite(Number(workout["workout-energy-cal"])) && `${Number(workout["workout-energy-cal"])} kcal`].filter(Boolean);
  return el("div", { className: "workout" },
    el("span", { className: "big-icon" }, icons[kind] ?? "💪"),
    el("div", {}, el("strong", { className: "workout-type" }, kind), el("div", { className: "workout-numbers" }, parts.join(" · "))));
}, { template: { type: "workout", "workout-type": "run", "workout-distance-meters": 5000, "workout-duration-seconds": 1500, "workout-energy-cal": 400 } });

registerPayloadRenderer("workout-summary", (summary, { el, formatDuration }) => {
  const count = Number(summary.count) || 0;
  const card = el("div", { className: "workout-summary" },
    el("div", { className: "payload-type" }, `Week of ${typeof summary.week_start === "string" ? summary.week_start : "this week"}`),
    el("div", { className: "summary-numbers" },
      stat(el, String(count), count === 1 ? "workout" : "workouts"),
      stat(el, kilometres(summary.distance_meters) ?? "–", "distance"),
      stat(el, formatDuration(summary.duration_seconds) || "–", "time"),
      stat(el, `${Number(summary.energy_cal) || 0}`, "kcal")));
  const goal = Number(summary.goal_distance_meters);
  if (goal > 0) {
    const progress = el("progress", { max: String(goal), value: String(Number(summary.goal_progress_meters) || 0) });
    card.append(el("div", { className: "goal" }, `Goal ${kilometres(goal)}${summary.goal_type ? ` of ${summary.goal_type}` : ""} `, progress));
  }
  return card;
});

function stat(el, value, label) {
  return el("div", { className: "stat" }, el("strong", {}, value), el("span", {}, label));
}
