// The teacher's token kept in this tab's sessionStorage (lucid.ui.live_class.teacher_key).
export default function(component) {
  const { data, setTriggerValue } = component;
  const name = 'lucid-teach-' + data.code;
  try {
    if (data.token) {
      window.sessionStorage.setItem(name, data.token);
    } else if (data.ask) {
      const token = window.sessionStorage.getItem(name);
      if (token && token.length < 100) setTriggerValue('token', token);
    }
  } catch (err) { /* storage off (private mode): the teacher keeps the tab open, as before */ }
}
