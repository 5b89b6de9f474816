// The real React and ReactDOM (devDependencies), bundled for test and bench pages by test/support/react-bundle.ts.
import * as React from "react";
import * as ReactDOM from "react-dom";
import { createRoot } from "react-dom/client";

window.React = React;
window.ReactDOM = ReactDOM;
window.createRoot = createRoot;
