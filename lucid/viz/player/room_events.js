// Class events between a student's player and the class panel's watcher (lucid.ui.live_class.room_watch).
//
// Both components' modules start with this file (lucid.viz.player.script, room_watch.script), so the two
// speak through DOM CustomEvents on window, under the names below, and share no global variable.
//
//   'lucid:room-question'  detail { q, card, taken }   the player read a question key (lucid.live_class.feed
//                          question_key: "<id>:<0|1>", "" for none) other than the one its page was drawn
//                          with, and the question's card (feed.question_card: label, step, answer once
//                          revealed; undefined for none); a watcher on the page takes it (sets taken), shows
//                          the card at once and reruns the class panel. Nobody took it: there is no watcher,
//                          and the player asks for a whole rerun.
//   'lucid:room-question-ask'  detail { q, card }  a watcher just drawn asks for what the player read last
//                          (a change seen before the watcher existed); the player fills both in.

const ROOM_QUESTION = 'lucid:room-question';
const ROOM_QUESTION_ASK = 'lucid:room-question-ask';

/** Tell the page's watcher the question the feed has now (a feed: its q and card); true when a watcher took it. */
function roomAnnounce(feed) {
  const event = new CustomEvent(ROOM_QUESTION, { detail: { q: feed.q, card: feed.card, taken: false } });
  window.dispatchEvent(event);
  return event.detail.taken;
}

/** What the player read last: { q, card } (q undefined: no player read one yet). */
function roomLastQuestion() {
  const event = new CustomEvent(ROOM_QUESTION_ASK, { detail: { q: undefined, card: undefined } });
  window.dispatchEvent(event);
  return event.detail;
}
