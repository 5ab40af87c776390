// Keyboard fixes to Streamlit's own widgets (lucid.ui.runtime.a11y), on every page.
//
// A popover (Streamlit's stPopover: a button, and a role=dialog panel drawn at the end of the page while open)
// leaves the focus on its button, so a keyboard user Tabs through the whole page to reach the panel's first
// control. Here: when a panel opens it takes the focus (its first control); when it closes with the focus inside
// it (Escape, or its button again), or left on nothing, the focus goes back to the button that opened it.
const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]):not([type=hidden]), select, textarea, '
  + '[tabindex]:not([tabindex="-1"])';

export default function(component) {
  const root = document.documentElement;
  if (root.dataset.lucidA11y) return undefined;  // one page, one watcher (the component is drawn each run)
  root.dataset.lucidA11y = 'on';
  const opened = new Map();  // popover panel -> the button that opened it
  const look = () => {
    for (const panel of document.querySelectorAll('[data-testid="stPopoverBody"]')) {
      if (opened.has(panel)) continue;
      const button = document.activeElement && document.activeElement.closest
        ? document.activeElement.closest('[data-testid="stPopoverButton"]') : null;
      opened.set(panel, button);
      if (button) {
        // The panel's content arrives with it, but its widgets may mount a frame later.
        requestAnimationFrame(() => {
          const first = panel.querySelector(FOCUSABLE);
          if (first && !panel.contains(document.activeElement)) first.focus();
        });
      }
    }
    for (const [panel, button] of opened) {
      if (panel.isConnected) continue;
      opened.delete(panel);
      const lost = !document.activeElement || document.activeElement === document.body;
      if (button && button.isConnected && lost) button.focus();
    }
  };
  new MutationObserver(look).observe(document.body, { childList: true, subtree: true });
  return undefined;
}
