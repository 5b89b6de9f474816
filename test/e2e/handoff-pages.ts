/** A sign-in page: on success the URL, title and content change and a popup opens. */
export const LOGIN_PAGE = `<!doctype html><title>Sign in</title>
<form id=f onsubmit="return false">
  <label>User <input id=user autocomplete=username></label>
  <label>Password <input id=pw type=password></label>
  <button id=go type=button>Sign in</button>
</form>
<script>
document.getElementById("go").addEventListener("click", () => {
  const who = document.getElementById("user").value || "nobody";
  history.pushState({}, "", "?signed-in");
  document.title = "Welcome " + who;
  document.body.innerHTML = "<h1>Welcome " + who + "</h1><button id=next>Continue</button>";
  window.open("/second", "_blank");
});
</script>`;
