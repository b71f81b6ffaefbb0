/** Entry point: one controller (state and event queue), rendered by Preact into <body>. */
import { render } from "preact";
import { App } from "./components/App.js";
import { Controller, Ctl } from "./controller.js";
import "./styles.css";

const ctl = new Controller();
render(
  <Ctl.Provider value={ctl}>
    <App />
  </Ctl.Provider>,
  document.getElementById("app")!,
);
ctl.start();
