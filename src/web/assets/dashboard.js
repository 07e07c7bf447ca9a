// pagewatch dashboard: small progressive enhancements. Every page works without it.
'use strict';

// "Copy" buttons: <button data-copy="ID"> copies the value of input #ID.
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const input = document.getElementById(button.getAttribute('data-copy'));
  const status = document.querySelector(`[data-copy-status="${button.getAttribute('data-copy')}"]`);
  if (!input) return;
  input.select();
  let copied = false;
  try {
    await navigator.clipboard.writeText(input.value);
    copied = true;
  } catch {
    // Clipboard API unavailable (plain http on a non-local address): fall back to the selection.
    copied = document.execCommand && document.execCommand('copy');
  }
  if (status) status.textContent = copied ? 'Copied to the clipboard.' : 'Press Ctrl+C (or ⌘C) to copy the selected token.';
});

// Target kind selects show only the rules of that kind.
function syncRules(kindSelect) {
  const ruleSelect = document.getElementById(kindSelect.getAttribute('data-rules'));
  if (!ruleSelect) return;
  for (const group of ruleSelect.querySelectorAll('optgroup')) {
    const visible = group.getAttribute('data-kind') === kindSelect.value;
    group.hidden = !visible;
    group.disabled = !visible;
  }
  const selected = ruleSelect.selectedOptions[0];
  if (selected && selected.parentElement && selected.parentElement.disabled) {
    const first = ruleSelect.querySelector(`optgroup[data-kind="${kindSelect.value}"] option`);
    if (first) first.selected = true;
  }
}
for (const select of document.querySelectorAll('select[data-rules]')) {
  syncRules(select);
  select.addEventListener('change', () => syncRules(select));
}

// Receipt progress: a page with data-refresh-seconds reloads itself while a check is pending.
const refresh = document.querySelector('[data-refresh-seconds]');
if (refresh) {
  const seconds = Number(refresh.getAttribute('data-refresh-seconds'));
  if (seconds > 0) setTimeout(() => window.location.reload(), seconds * 1000);
}
