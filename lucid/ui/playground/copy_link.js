async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try { await navigator.clipboard.writeText(text); return true; } catch (e) { /* fall through */ }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
  area.remove();
  return ok;
}

function bind(root) {
  root.dataset.ready = '1';
  const button = root.querySelector('.lucid-copy-button');
  const status = root.querySelector('.lucid-copy-status');
  const field = root.querySelector('.lucid-copy-field');
  let timer = null;
  button.addEventListener('click', async () => {
    // the player keeps ?step= in it up to date; a class's teacher token (teach=) never leaves in a link
    const url = new URL(window.location.href);
    url.searchParams.delete('teach');
    const link = url.toString();
    const ok = await copyText(link);
    root.dataset.copied = ok ? link : '';
    field.hidden = ok;
    if (ok) {
      status.textContent = root.dataset.copiedText || 'Link copied';
    } else {
      status.textContent = root.dataset.pressText || 'Press Ctrl+C to copy:';
      field.value = link;
      field.focus();
      field.select();
    }
    clearTimeout(timer);
    if (ok) timer = setTimeout(() => { status.textContent = ''; }, 2500);
  });
}

document.querySelectorAll('.lucid-copy-link:not([data-ready])').forEach(bind);
