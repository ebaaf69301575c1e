// Who to be: the users the server knows, or a new one. Choosing one opens
// `/?user=ID` (and the channel given), so every view of the playground is a link.

import { playgroundUsers } from "./api.js";
import { el } from "./dom.js";

export async function showUserPicker(root, channel) {
  const list = el("ul", { className: "user-list" });
  const idInput = el("input", { name: "user", placeholder: "alice", required: true, pattern: "[A-Za-z0-9@_\\-]{1,64}", autocomplete: "off" });
  const nameInput = el("input", { name: "name", placeholder: "Alice (optional)", autocomplete: "off" });
  const form = el("form", { className: "new-user", onsubmit: (event) => {
    event.preventDefault();
    open(idInput.value.trim(), nameInput.value.trim(), channel);
  } },
  el("label", {}, "User id ", idInput), el("label", {}, "Name ", nameInput), el("button", { type: "submit" }, "Start chatting"));
  const error = el("p", { className: "error", role: "alert" });
  root.replaceChildren(el("main", { className: "picker" },
    el("h1", {}, "ChatBotKit playground"),
    el("p", {}, "Talk to the bots as any user. Pick one, or make a new one."),
    form, el("h2", {}, "Known users"), list, error));
  idInput.focus();
  try {
    const users = await playgroundUsers();
    if (users.length === 0) list.append(el("li", { className: "muted" }, "None yet."));
    for (const user of users) {
      list.append(el("li", {}, el("button", { type: "button", className: "user-choice", dataset: { user: user.id },
        onclick: () => open(user.id, "", channel) }, user.name ? `${user.name} (${user.id})` : user.id)));
    }
  } catch (failure) {
    error.textContent = `Could not list the users: ${failure.message}`;
  }
}

function open(userId, name, channel) {
  const query = new URLSearchParams({ user: userId });
  if (name) query.set("name", name);
  if (channel) query.set("channel", channel);
  location.assign(`/?${query}`);
}
