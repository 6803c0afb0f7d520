package dev.hopbench.node;

/** schema/hopbench/v1/payload.proto's Text, as a plain class Jackson maps. */
public class Text {
    public String text;
}
