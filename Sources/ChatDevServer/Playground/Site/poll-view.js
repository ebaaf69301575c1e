// A poll: its options with their votes, the user's own votes marked. Pressing an option votes
// for it (on a single-choice poll that changes the vote), pressing a voted option takes the
// vote back; its creator can close it.

import { el } from "./dom.js";

export function renderPoll(message, view) {
  const poll = message.poll;
  const counts = poll.vote_counts_by_option && typeof poll.vote_counts_by_option === "object" ? poll.vote_counts_by_option : {};
  const mine = ownVotes(poll, view.me);
  const total = Object.values(counts).reduce((sum, count) => sum + (Number(count) || 0), 0);
  const options = Array.isArray(poll.options) ? poll.options : [];
  const node = el("div", { className: poll.is_closed ? "poll closed" : "poll", dataset: { poll: String(poll.id) } },
    el("div", { className: "poll-name" }, "📊 ", String(poll.name ?? "Poll")),
    poll.is_closed ? el("div", { className: "details" }, "Closed") : el("div", { className: "details" },
      poll.enforce_unique_vote ? "Choose one" : "Choose any"));
  for (const option of options) {
    const count = Number(counts[option.id]) || 0;
    const vote = mine.get(option.id);
    const bar = el("span", { className: "bar" });
    bar.style.width = `${total > 0 ? Math.round((count / total) * 100) : 0}%`;
    node.append(el("button", {
      type: "button", className: vote ? "poll-option voted" : "poll-option", disabled: Boolean(poll.is_closed),
      dataset: { option: String(option.text ?? "") }, "aria-pressed": vote ? "true" : "false",
      onclick: () => (vote ? view.removeVote(message, vote) : view.vote(message, option)),
    }, bar, el("span", { className: "option-text" }, String(option.text ?? "")), el("span", { className: "count" }, String(count))));
  }
  if (!poll.is_closed && poll.created_by_id === view.me) {
    node.append(el("button", { type: "button", className: "link-button close-poll", onclick: () => view.closePoll(message) }, "Close poll"));
  }
  return node;
}

/** The user's votes by option id: the poll's own_votes, and the latest votes events carry. */
function ownVotes(poll, me) {
  const votes = new Map();
  for (const vote of Array.isArray(poll.own_votes) ? poll.own_votes : []) {
    if (vote.option_id) votes.set(vote.option_id, vote);
  }
  const latest = poll.latest_votes_by_option && typeof poll.latest_votes_by_option === "object" ? poll.latest_votes_by_option : {};
  for (const list of Object.values(latest)) {
    for (const vote of Array.isArray(list) ? list : []) {
      if ((vote.user_id ?? vote.user?.id) === me && vote.option_id) votes.set(vote.option_id, vote);
    }
  }
  return votes;
}
