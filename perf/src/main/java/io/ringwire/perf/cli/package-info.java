/**
 * Reading a {@code ringwire perf} command line: {@code --name value} options, and the usage error
 * every subcommand reports (exit 2) when a line cannot run as given.
 */
package io.ringwire.perf.cli;
