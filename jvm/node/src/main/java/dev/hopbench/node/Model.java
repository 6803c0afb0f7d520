package dev.hopbench.node;

import com.google.protobuf.Message;
import dev.hopbench.schema.v1.AllTypes;
import dev.hopbench.schema.v1.AllTypesList;
import dev.hopbench.schema.v1.Blob;
import dev.hopbench.schema.v1.Int;
import dev.hopbench.schema.v1.Ints;
import dev.hopbench.schema.v1.PaymentList;
import dev.hopbench.schema.v1.RecipeList;
import dev.hopbench.schema.v1.Text;
import dev.hopbench.schema.v1.UserList;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * A payload model (internal/payload's Model): its name, the plain class its
 * JSON decodes into, its Protobuf message, the field of the gRPC Payload
 * named after it, and how many items a message of it carries, in the unit
 * the Go node counts. A user's message (UserMessage) has no plain class
 * and no Payload field: its JSON is the proto JSON mapping of its list.
 */
record Model(String name, Class<?> pojo, Message proto, int payloadField,
             ToIntFunction<Object> pojoLen, ToIntFunction<Message> protoLen) {

    static final Map<String, Model> BY_NAME = Map.of(
            "user", new Model("user", Models.UserList.class, UserList.getDefaultInstance(), 1,
                    o -> size(((Models.UserList) o).users), m -> ((UserList) m).getUsersCount()),
            "payment", new Model("payment", Models.PaymentList.class, PaymentList.getDefaultInstance(), 2,
                    o -> size(((Models.PaymentList) o).payments), m -> ((PaymentList) m).getPaymentsCount()),
            "recipe", new Model("recipe", Models.RecipeList.class, RecipeList.getDefaultInstance(), 3,
                    o -> size(((Models.RecipeList) o).recipes), m -> ((RecipeList) m).getRecipesCount()),
            "text", new Model("text", Models.Text.class, Text.getDefaultInstance(), 4,
                    o -> utf8(((Models.Text) o).text), m -> ((Text) m).getTextBytes().size()),
            "alltypes", new Model("alltypes", Models.AllTypesList.class, AllTypesList.getDefaultInstance(), 5,
                    o -> properties((Models.AllTypesList) o), m -> properties((AllTypesList) m)),
            "int", new Model("int", Models.Int.class, Int.getDefaultInstance(), 6,
                    o -> Math.min(1, ((Models.Int) o).value), m -> Math.min(1, ((Int) m).getValue())),
            "ints", new Model("ints", Models.Ints.class, Ints.getDefaultInstance(), 7,
                    o -> ((Models.Ints) o).values == null ? 0 : ((Models.Ints) o).values.length, m -> ((Ints) m).getValuesCount()),
            "textfile", blob("textfile", 8),
            "blob", blob("blob", 9));

    /** user is the user's message the node serves (--descriptors), or null. */
    private static volatile Model user;

    static void use(Model m) { user = m; }

    /** dynamic is a user's message's model: its list, counted in items. */
    static Model dynamic(String name, Message list) {
        var items = list.getDescriptorForType().findFieldByNumber(1);
        return new Model(name, null, list, 0, null, m -> m.getRepeatedFieldCount(items));
    }

    static Model lookup(String name) {
        Model u = user;
        Model m = u != null && u.name().equals(name) ? u : BY_NAME.get(name);
        if (m == null) {
            var known = new java.util.TreeSet<>(BY_NAME.keySet());
            if (u != null) {
                known.add(u.name());
            }
            throw HopError.notFound("payload " + name + ": unknown model (known: " + String.join(", ", known) + ")");
        }
        return m;
    }

    /** readJson reads a JSON body from bytes, as readJson does from a stream. */
    Object readJson(byte[] b) throws java.io.IOException {
        return pojo != null ? Wire.JSON.readValue(b, pojo) : readJson(new java.io.ByteArrayInputStream(b));
    }

    /** writeJson writes a JSON body: Jackson on the plain class, or a user's list in the proto JSON mapping. */
    static byte[] writeJson(Object msg) throws java.io.IOException {
        if (msg instanceof Message m) {
            return UserMessage.JSON_OUT.print(m).getBytes(StandardCharsets.UTF_8);
        }
        return Wire.JSON.writeValueAsBytes(msg);
    }

    /** readJson reads a JSON body: Jackson on the plain class, or a user's list in the proto JSON mapping. */
    Object readJson(java.io.InputStream in) throws java.io.IOException {
        if (pojo != null) {
            return Wire.JSON.readValue(in, pojo);
        }
        Message.Builder b = proto.newBuilderForType();
        UserMessage.JSON_IN.merge(new java.io.InputStreamReader(in, StandardCharsets.UTF_8), b);
        return b.build();
    }

    /** len is payload.Model.Len: items in the model's unit, for either representation. */
    int len(Object msg) {
        if (msg instanceof Message m) {
            return protoLen.applyAsInt(m);
        }
        return pojoLen.applyAsInt(msg);
    }

    private static Model blob(String name, int field) {
        return new Model(name, Models.Blob.class, Blob.getDefaultInstance(), field,
                o -> ((Models.Blob) o).content == null ? 0 : ((Models.Blob) o).content.length,
                m -> ((Blob) m).getContent().size());
    }

    private static int size(java.util.List<?> l) { return l == null ? 0 : l.size(); }

    private static int utf8(String s) { return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length; }

    /** properties counts the fields set, the unit alltypes' count is in. */
    private static int properties(Models.AllTypesList l) {
        if (l.records == null) {
            return 0;
        }
        int n = 0;
        for (Models.AllTypes r : l.records) {
            n += (r.text_field != null && !r.text_field.isEmpty() ? 1 : 0) + (r.bool_field ? 1 : 0) + (r.byte_field != 0 ? 1 : 0)
                    + (r.date_time_field != null ? 1 : 0) + (r.decimal_field != null && !r.decimal_field.isEmpty() ? 1 : 0)
                    + (r.float_field != 0 ? 1 : 0) + (r.int_field != 0 ? 1 : 0) + (r.short_field != 0 ? 1 : 0) + (r.long_field != 0 ? 1 : 0);
        }
        return n;
    }

    private static int properties(AllTypesList l) {
        int n = 0;
        for (AllTypes r : l.getRecordsList()) {
            n += r.getAllFields().size();
        }
        return n;
    }

}
