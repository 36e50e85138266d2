// The agency dashboard's one script: copy buttons (a secret shown once, an embed snippet), the extraction page's
// selected field scrolled into view (its box on the page image, its row in the table), and the review page's
// keyboard (↓/↑ next and previous field, Alt+N "not on the document"). Everything works without JavaScript
// (forms post, confirmations are <details>, a selected field is a link).
for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
  button.addEventListener('click', async () => {
    const target = document.getElementById(button.dataset.copy ?? '') as HTMLInputElement | HTMLTextAreaElement | null;
    if (!target) return;
    const status = button.parentElement?.parentElement?.querySelector('[role="status"]');
    try {
      await navigator.clipboard.writeText(target.value);
      if (status) status.textContent = 'Copied to the clipboard.';
    } catch {
      target.focus();
      target.select();
      if (status) status.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
    }
  });
}

document.getElementById('selected-field')?.scrollIntoView({ block: 'center' });
document.getElementById('selected-box')?.scrollIntoView({ block: 'center', inline: 'nearest' });

// Review page: each field is a form; ↓/↑ move between their value inputs, Alt+N marks the focused field
// "not on the document" (Enter saves the value as shown: a confirmation when untouched, else a correction).
const reviewInputs = Array.from(document.querySelectorAll<HTMLInputElement>('input[data-review-value]'));
reviewInputs.forEach((input, i) => {
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      const next = reviewInputs[i + (e.key === 'ArrowDown' ? 1 : -1)];
      if (next) {
        e.preventDefault();
        next.focus();
        next.select();
        next.closest('li')?.scrollIntoView({ block: 'nearest' });
      }
    } else if (e.altKey && (e.key === 'n' || e.key === 'N' || e.code === 'KeyN')) {
      e.preventDefault();
      input.form?.querySelector<HTMLButtonElement>('button[value="not_on_document"]')?.click();
    }
  });
});
