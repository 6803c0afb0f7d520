package dev.hopbench.node;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.util.JsonFormat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A user's message (hopbench's --proto), served from the descriptor set
 * hopbench wrote (--descriptors, jvm.WriteDescriptors): its list,
 * hopbench.user.NameList, as a protobuf-java DynamicMessage, in the proto
 * JSON mapping through JsonFormat, and over gRPC as
 * hopbench.user.NameService, as internal/userschema makes them.
 */
final class UserMessage {
    private UserMessage() {}

    /** The proto JSON mapping as Go's protojson reads and writes it: unknown fields and enum names discarded. */
    static final JsonFormat.Parser JSON_IN = JsonFormat.parser().ignoringUnknownFields();
    static final JsonFormat.Printer JSON_OUT = JsonFormat.printer().omittingInsignificantWhitespace();

    /** use loads message from the descriptor set at path and makes it a model the node serves. */
    static void use(String path, String message) throws IOException {
        Map<String, FileDescriptor> files = build(path);
        String simple = message.substring(message.lastIndexOf('.') + 1);
        Descriptor list = null;
        ServiceDescriptor service = null;
        for (FileDescriptor f : files.values()) {
            Descriptor l = f.getPackage().equals("hopbench.user") ? f.findMessageTypeByName(simple + "List") : null;
            if (l != null && l.findFieldByNumber(1).getMessageType().getFullName().equals(message)) {
                list = l;
                service = f.findServiceByName(simple + "Service");
            }
        }
        if (list == null || service == null) {
            throw new IOException("--descriptors " + path + ": no hopbench.user." + simple + "List of " + message
                    + " and its service in it; hopbench writes them (hopbench node --runtime jvm --proto ...)");
        }
        Model.use(Model.dynamic(message, DynamicMessage.getDefaultInstance(list)));
        Frames.useFamily(new Frames.Family(service.getFullName(), message));
    }

    /** build builds every file of the set, each after the files it imports, as hopbench writes them. */
    private static Map<String, FileDescriptor> build(String path) throws IOException {
        FileDescriptorSet set;
        try {
            set = FileDescriptorSet.parseFrom(Files.readAllBytes(Path.of(path)));
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException("--descriptors " + path + ": no such file", e);
        } catch (IOException e) { // InvalidProtocolBufferException too
            throw new IOException("--descriptors " + path + ": not a descriptor set hopbench wrote: " + e.getMessage(), e);
        }
        Map<String, FileDescriptor> built = new HashMap<>();
        for (FileDescriptorProto f : set.getFileList()) {
            FileDescriptor[] deps = new FileDescriptor[f.getDependencyCount()];
            for (int i = 0; i < deps.length; i++) {
                deps[i] = built.get(f.getDependency(i));
                if (deps[i] == null) {
                    throw new IOException("--descriptors " + path + ": " + f.getName() + " imports " + f.getDependency(i)
                            + ", which is not before it in the set; write it with its imports first (protoc --include_imports)");
                }
            }
            try {
                built.put(f.getName(), FileDescriptor.buildFrom(f, deps));
            } catch (DescriptorValidationException e) {
                throw new IOException("--descriptors " + path + ": " + f.getName() + ": " + e.getMessage(), e);
            }
        }
        return built;
    }
}
