// One message as a person sees it: who and when, its text (links made clickable, everything
// else plain text), its attachments, poll or shared location, its reactions, and what can be
// done with it. A message is drawn anew whenever it changes; `view` is what the channel or
// thread offers: the user's id and the actions.
//
// A reply an AI is writing is drawn the same way: each `message.updated` redraws it with its
// text so far, and the view's indicator line under the text says what it is doing
// (ai-indicator-view.js).

import { renderAttachment } from "./attachment-view.js";
import { el, link, formatTime, displayName } from "./dom.js";
import { renderLocation } from "./location-view.js";
import { renderPoll } from "./poll-view.js";

export const quickReactions = [["like", "👍"], ["love", "❤️"], ["haha", "😂"], ["wow", "😮"]];
const reactionEmoji = Object.fromEntries(quickReactions);

export function renderMessage(message, view) {
  const mine = message.user?.id === view.me;
  const classes = ["message", mine && "mine", message.type === "ephemeral" && "ephemeral", message.type === "error" && "error",
    isDeleted(message) && "deleted", message.moderation_notice && "notice", message.ai_generated === true && "ai"].filter(Boolean);
  const node = el("article", { className: classes.join(" "), dataset: { id: message.id, user: message.user?.id ?? "" } },
    el("header", {},
      el("span", { className: "author" }, displayName(message.user)),
      el("time", { datetime: message.created_at }, formatTime(message.created_at)),
      message.edited && !isDeleted(message) && el("span", { className: "edited" }, "(edited)"),
      message.type === "ephemeral" && el("span", { className: "only-you" }, "only you can see this")));
  if (isDeleted(message)) {
    node.append(el("p", { className: "text muted" }, "This message was deleted."));
    return node;
  }
  if (message.moderation_notice) node.append(renderNotice(message.moderation_notice));
  if (message.text) node.append(renderText(message.text));
  const attachments = Array.isArray(message.attachments) ? message.attachments : [];
  if (attachments.length > 0) {
    node.append(el("div", { className: "attachments" }, attachments.map((attachment) => renderAttachment(attachment, message, view))));
  }
  if (message.poll) node.append(renderPoll(message, view));
  if (message.shared_location) node.append(renderLocation(message.shared_location));
  const indicator = view.indicator?.(message);
  if (indicator) node.append(indicator);
  node.append(renderReactions(message, view));
  if (message.type !== "ephemeral" && message.type !== "error") node.append(renderActions(message, view, mine));
  if (!view.inThread && message.reply_count > 0) {
    node.append(el("button", { type: "button", className: "replies link-button", onclick: () => view.openThread(message) },
      `${message.reply_count} ${message.reply_count === 1 ? "reply" : "replies"}`));
  }
  return node;
}

export function isDeleted(message) {
  return message.type === "deleted" || Boolean(message.deleted_at);
}

/** The text, with its http(s) links clickable and the rest as it was typed. */
function renderText(text) {
  const paragraph = el("p", { className: "text" });
  let rest = String(text);
  const pattern = /https?:\/\/[^\s<>"']+/;
  for (let match = rest.match(pattern); match; match = rest.match(pattern)) {
    const url = match[0].replace(/[).,!?;:]+$/, "");
    paragraph.append(rest.slice(0, match.index), link(url, url));
    rest = rest.slice(match.index + url.length);
  }
  paragraph.append(rest);
  return paragraph;
}

/** A moderator's notice (ModerationBot's `moderation_notice`) is marked as one; its text says why. */
function renderNotice(notice) {
  return el("div", { className: "moderation-notice", role: "note", title: typeof notice.reason === "string" ? notice.reason : "" },
    el("strong", {}, "Moderation"), typeof notice.file === "string" && ` ${notice.file}`);
}

function renderReactions(message, view) {
  const row = el("div", { className: "reactions" });
  const counts = message.reaction_counts && typeof message.reaction_counts === "object" ? message.reaction_counts : {};
  const own = ownReactions(message, view.me);
  for (const [type, count] of Object.entries(counts)) {
    if (!(count > 0)) continue;
    row.append(el("button", { type: "button", className: own.has(type) ? "reaction own" : "reaction",
      dataset: { reaction: type }, title: type, onclick: () => view.toggleReaction(message, type, own.has(type)) },
    `${reactionEmoji[type] ?? type} ${count}`));
  }
  return row;
}

/** The reaction types `me` gave: from own_reactions, and the latest reactions events carry. */
export function ownReactions(message, me) {
  const own = new Set();
  for (const list of [message.own_reactions, message.latest_reactions]) {
    for (const reaction of Array.isArray(list) ? list : []) {
      if ((reaction.user_id ?? reaction.user?.id) === me) own.add(reaction.type);
    }
  }
  return own;
}

function renderActions(message, view, mine) {
  const own = ownReactions(message, view.me);
  return el("footer", { className: "message-actions" },
    quickReactions.map(([type, emoji]) => el("button", { type: "button", className: "quick-reaction", title: `React with ${type}`,
      dataset: { reaction: type }, onclick: () => view.toggleReaction(message, type, own.has(type)) }, emoji)),
    !view.inThread && el("button", { type: "button", className: "link-button reply", onclick: () => view.openThread(message) }, "Reply"),
    mine && el("button", { type: "button", className: "link-button edit", onclick: () => view.edit(message) }, "Edit"),
    mine && el("button", { type: "button", className: "link-button delete", onclick: () => view.remove(message) }, "Delete"));
}
