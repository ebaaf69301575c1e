// The playground's entry: `/` picks a user; `/?user=alice&channel=messaging:general` opens
// that channel as that user at once (the dev server makes the user, and a member of the
// channel, on the way). Other modules may register payload renderers before messages show.

import { ChatAPI, playgroundSession } from "./api.js";
import { ChatView } from "./chat-view.js";
import { el } from "./dom.js";
import { showUserPicker } from "./user-picker-view.js";
import "./workout-cards.js";

const root = document.getElementById("app");
const query = new URLSearchParams(location.search);

async function start() {
  const userId = query.get("user");
  const channel = query.get("channel");
  if (!userId) {
    await showUserPicker(root, channel);
    return;
  }
  const session = await playgroundSession(userId, query.get("name"), channel);
  if (session.renderers) await import(session.renderers).catch((error) => console.warn("the bot's renderers did not load", error));
  await new ChatView(root, new ChatAPI(session)).start(channel);
}

start().catch((error) => {
  root.replaceChildren(el("main", { className: "picker" }, el("h1", {}, "The playground could not start"),
    el("p", { className: "error", role: "alert" }, error.message), el("a", { href: "/" }, "Choose another user")));
});
