package dev.hopbench.node;

import dev.hopbench.schema.v1.Ingredient;
import dev.hopbench.schema.v1.Recipe;
import dev.hopbench.schema.v1.RecipeIngredient;
import dev.hopbench.schema.v1.RecipeList;
import dev.hopbench.schema.v1.UnitType;

import java.util.ArrayList;

/**
 * Ensor's conversion between his domain object and the Protobuf message,
 * by hand, field by field, as his timings of protobuf-java included it:
 * for his model, recipe.
 */
final class Convert {
    private Convert() {}

    static RecipeList toProto(Models.RecipeList l) {
        RecipeList.Builder out = RecipeList.newBuilder();
        for (Models.Recipe r : l.recipes) {
            Recipe.Builder rb = Recipe.newBuilder().setName(r.name).setDescription(r.description);
            for (Models.RecipeIngredient ri : r.ingredients) {
                rb.addIngredients(RecipeIngredient.newBuilder()
                        .setIngredient(Ingredient.newBuilder().setName(ri.ingredient.name).setDescription(ri.ingredient.description))
                        .setQuantity(ri.quantity).setType(UnitType.forNumber(ri.type)));
            }
            out.addRecipes(rb);
        }
        return out.build();
    }

    static Models.RecipeList fromProto(RecipeList l) {
        Models.RecipeList out = new Models.RecipeList();
        out.recipes = new ArrayList<>(l.getRecipesCount());
        for (Recipe r : l.getRecipesList()) {
            Models.Recipe mr = new Models.Recipe();
            mr.name = r.getName();
            mr.description = r.getDescription();
            mr.ingredients = new ArrayList<>(r.getIngredientsCount());
            for (RecipeIngredient ri : r.getIngredientsList()) {
                Models.RecipeIngredient m = new Models.RecipeIngredient();
                m.ingredient = new Models.Ingredient();
                m.ingredient.name = ri.getIngredient().getName();
                m.ingredient.description = ri.getIngredient().getDescription();
                m.quantity = ri.getQuantity();
                m.type = ri.getTypeValue();
                mr.ingredients.add(m);
            }
            out.recipes.add(mr);
        }
        return out;
    }
}
