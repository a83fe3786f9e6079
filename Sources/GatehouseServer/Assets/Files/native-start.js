const form = document.getElementById("native-start");
if (form) form.submit();