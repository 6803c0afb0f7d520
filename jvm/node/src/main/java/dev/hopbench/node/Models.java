package dev.hopbench.node;

import java.util.List;

/**
 * schema/hopbench/v1/payload.proto's messages as plain classes for
 * Jackson, as the thesis's services held their data. Fields carry the
 * proto names, so their JSON keys are the Go node's.
 */
final class Models {
    private Models() {}

    /** Ack answers a post, as schema's Ack. */
    public static class Ack {
        public String model;
        public long count;
    }

    public static class User {
        public String uid, email, username, profile_picture_url;
        public int age;
    }

    public static class UserList {
        public List<User> users;
    }

    public static class Payment {
        public String intent;
        public Payer payer;
        public List<Transaction> transactions;
        public String note_to_payer;
        public RedirectUrls redirect_urls;
    }

    public static class Payer {
        public String payment_method;
    }

    public static class RedirectUrls {
        public String return_url, cancel_url;
    }

    public static class Transaction {
        public Amount amount;
        public String description, custom, invoice_number, soft_descriptor;
        public ItemList item_list;
    }

    public static class Amount {
        public String total, currency;
        public AmountDetails details;
    }

    public static class AmountDetails {
        public String subtotal, tax, shipping, handling_fee, shipping_discount, insurance;
    }

    public static class ItemList {
        public List<Item> items;
        public ShippingAddress shipping_address;
    }

    public static class Item {
        public String name, description, quantity, price, tax, sku, currency;
    }

    public static class ShippingAddress {
        public String recipient_name, line1, line2, city, country_code, postal_code, phone, state;
    }

    public static class PaymentList {
        public List<Payment> payments;
    }

    public static class Recipe {
        public String name, description;
        public List<RecipeIngredient> ingredients;
    }

    public static class RecipeIngredient {
        public Ingredient ingredient;
        public int quantity;
        /** UnitType, a number in JSON as Go writes proto enums. */
        public int type;
    }

    public static class Ingredient {
        public String name, description;
    }

    public static class RecipeList {
        public List<Recipe> recipes;
    }

    public static class Text {
        public String text;
    }

    /** google.protobuf.Timestamp as Go's encoding/json writes it. */
    public static class Timestamp {
        public long seconds;
        public int nanos;
    }

    public static class AllTypes {
        public String text_field;
        public boolean bool_field;
        public int byte_field;
        public Timestamp date_time_field;
        public String decimal_field;
        public float float_field;
        public int int_field, short_field;
        public long long_field;
    }

    public static class AllTypesList {
        public List<AllTypes> records;
    }

    public static class Int {
        public int value;
    }

    public static class Ints {
        public int[] values;
    }

    public static class Blob {
        public String name, media_type;
        /** Base64 in JSON, as Go writes []byte. */
        public byte[] content;
    }
}
