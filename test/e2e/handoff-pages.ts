/**
 * A sign-in page: on success the URL, title and content change and a popup opens. Fields sit
 * at fixed fractions of the viewport, so a test can hit them through the viewer's image
 * without knowing the window size.
 */
export const LOGIN_PAGE = `<!doctype html><title>Sign in</title>
<style>
  html, body { margin: 0; height: 100%; }
  #user { position: fixed; left: 10%; top: 10%; width: 30%; height: 10%; font-size: 20px; }
  #pw { position: fixed; left: 50%; top: 10%; width: 30%; height: 10%; }
  #go { position: fixed; left: 10%; top: 40%; width: 30%; height: 10%; background: #2a6; color: #fff; }
</style>
<form id=f onsubmit="return false">
  <label>User <input id=user autocomplete=username></label>
  <label>Password <input id=pw type=password></label>
  <button id=go type=button>Sign in</button>
</form>
<script>
// What the last pointer move carried, so a test can tell a drag from a hover.
document.addEventListener("mousemove", (e) => { window.lastMoveButtons = e.buttons; });
document.getElementById("go").addEventListener("click", () => {
  const who = document.getElementById("user").value || "nobody";
  history.pushState({}, "", "?signed-in");
  document.title = "Welcome " + who;
  document.body.innerHTML = "<h1>Welcome " + who + "</h1><button id=next>Continue</button><div style='height:3000px'></div>";
  window.open("/second", "_blank");
});
</script>`;
