/// The one stylesheet every page uses.
enum Stylesheet {
    static let css = """
        :root { --ink: #1d2433; --muted: #5b6475; --line: #d7dbe3; --accent: #2456d3; --bad: #b42318; --good: #067647; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #f6f7f9; }
        header { display: flex; justify-content: space-between; align-items: center; padding: .75rem 1rem; background: #fff; border-bottom: 1px solid var(--line); }
        header nav a, header nav form { margin-left: 1rem; }
        .brand { font-weight: 700; color: var(--ink); text-decoration: none; }
        main { max-width: 34rem; margin: 2rem auto; padding: 0 1rem; }
        h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
        label { display: block; margin: .75rem 0 .25rem; font-weight: 600; }
        input[type=email], input[type=password], input[type=text] { width: 100%; padding: .6rem; border: 1px solid var(--line); border-radius: 6px; font: inherit; }
        button { margin-top: 1rem; padding: .6rem 1rem; border: 0; border-radius: 6px; background: var(--accent); color: #fff; font: inherit; cursor: pointer; }
        button.secondary { background: #fff; color: var(--ink); border: 1px solid var(--line); }
        button.danger { background: var(--bad); }
        button.link { background: none; color: var(--accent); padding: 0; margin: 0; text-decoration: underline; }
        form.inline { display: inline; }
        .notice { padding: .75rem; border-radius: 6px; } .notice.error { background: #fef3f2; color: var(--bad); } .notice.info { background: #ecfdf3; color: var(--good); }
        .demo-banner { background: #fffaeb; color: #93370d; padding: .5rem 1rem; text-align: center; border-bottom: 1px solid #fedf89; }
        table { width: 100%; border-collapse: collapse; } td, th { text-align: left; padding: .4rem; border-bottom: 1px solid var(--line); vertical-align: top; font-size: .9rem; }
        .muted { color: var(--muted); font-size: .9rem; }
        .providers button { width: 100%; background: #fff; color: var(--ink); border: 1px solid var(--line); }
        """
}
