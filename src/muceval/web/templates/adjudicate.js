// Keyboard shortcuts of the adjudication page: c, p, i, s answer; 1-9 choose the key fill;
// u takes back the last answer; Enter on the queue opens the first question.
document.addEventListener('keydown', function (event) {
  if (event.ctrlKey || event.metaKey || event.altKey) { return; }
  var target = event.target;
  if (target && (target.tagName === 'INPUT' && target.type !== 'radio' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA')) { return; }
  var key = event.key.toLowerCase();
  var buttons = {c: 'answer-correct', p: 'answer-partial', i: 'answer-incorrect', s: 'answer-skip'};
  if (buttons[key] && document.getElementById(buttons[key])) {
    event.preventDefault();
    document.getElementById(buttons[key]).click();
  } else if (key === 'u' && document.getElementById('undo') && !document.getElementById('undo').disabled) {
    event.preventDefault();
    document.getElementById('undo').click();
  } else if (/^[1-9]$/.test(key)) {
    var choice = document.querySelector('#offered input[value="' + key + '"]');
    if (choice) { event.preventDefault(); choice.checked = true; }
  } else if (key === 'enter' && document.getElementById('start')) {
    event.preventDefault();
    document.getElementById('start').click();
  }
});
// One answer per page: a second key press while the form is sent would answer the next question.
document.querySelectorAll('form').forEach(function (form) {
  form.addEventListener('submit', function () {
    setTimeout(function () { form.querySelectorAll('button').forEach(function (b) { b.disabled = true; }); }, 0);
  });
});
